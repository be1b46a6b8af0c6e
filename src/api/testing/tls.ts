import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  /** A self-signed certificate for 127.0.0.1 and localhost, PEM. */
  readonly cert: string;
  /** Its private key, PEM (PKCS#8, unencrypted). */
  readonly key: string;
}

/** A fresh self-signed certificate and key, made by the openssl command (Debian's `openssl`). */
export function makeTestCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'keyhole-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `key` encrypted with a passphrase, PEM, as `openssl pkey -aes256` writes it. */
export function encryptedKey(key: string): string {
  return execFileSync('openssl', ['pkey', '-aes256', '-passout', 'pass:secret'], { input: key }).toString();
}
