import { execFileSync } from 'node:child_process';
import { makeSelfSignedCertificate } from '../../http/testing/servers.js';

/** A fresh self-signed certificate for 127.0.0.1 and localhost and its key, PEM (PKCS#8, unencrypted). */
export const makeTestCertificate = makeSelfSignedCertificate;

/** `key` encrypted with a passphrase, PEM, as `openssl pkey -aes256` writes it. */
export function encryptedKey(key: string): string {
  return execFileSync('openssl', ['pkey', '-aes256', '-passout', 'pass:secret'], { input: key }).toString();
}
