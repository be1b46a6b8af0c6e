/** `--tls-cert` and `--tls-key`: the PEM pair `keyhole serve` answers HTTPS with, checked before listening. */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UserError } from '../../exit.js';
import { reasonOf } from '../../shared/errors.js';

export interface TlsPair {
  /** The certificate file's text: the server's certificate, then any intermediates. */
  readonly cert: string;
  readonly key: string;
}

/** Both flags or neither: undefined for plain HTTP, the checked pair for HTTPS. */
export async function readTlsPair(
  certFile: string | undefined,
  keyFile: string | undefined,
  cwd: string,
): Promise<TlsPair | undefined> {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined)
    throw new UserError('--tls-key needs --tls-cert: give the certificate (PEM) the key belongs to');
  if (keyFile === undefined)
    throw new UserError('--tls-cert needs --tls-key: give the certificate’s private key (PEM)');
  const cert = await readPem('--tls-cert', resolve(cwd, certFile));
  const key = await readPem('--tls-key', resolve(cwd, keyFile));
  const certificate = parseCertificate(certFile, cert);
  const privateKey = parseKey(keyFile, key);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new UserError(
      `--tls-key ${keyFile} is not the private key of the certificate in --tls-cert ${certFile}; give the key the certificate was issued for`,
    );
  }
  return { cert, key };
}

async function readPem(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UserError(`${flag} ${path}: cannot read it: ${readFailure(error)}`);
  }
}

function readFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return reasonOf(error);
}

function parseCertificate(file: string, text: string): X509Certificate {
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UserError(
      `--tls-cert ${file}: no PEM certificate in it (a "-----BEGIN CERTIFICATE-----" block); ${pemHint(text)}`,
    );
  }
  try {
    return new X509Certificate(text);
  } catch (error) {
    throw new UserError(`--tls-cert ${file}: the certificate cannot be read: ${reasonOf(error)}`);
  }
}

function parseKey(file: string, text: string): KeyObject {
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) {
    throw new UserError(
      `--tls-key ${file}: the key is encrypted; give it unencrypted (openssl pkey -in ${file} -out key.pem)`,
    );
  }
  if (!/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(text)) {
    throw new UserError(
      `--tls-key ${file}: no PEM private key in it (a "-----BEGIN PRIVATE KEY-----" block); ${pemHint(text)}`,
    );
  }
  try {
    return createPrivateKey(text);
  } catch (error) {
    throw new UserError(`--tls-key ${file}: the private key cannot be read: ${reasonOf(error)}`);
  }
}

function pemHint(text: string): string {
  if (text.includes('-----BEGIN CERTIFICATE-----'))
    return 'it holds a certificate: were the two files swapped?';
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    return 'it holds a private key: were the two files swapped?';
  return 'give the file in PEM (DER converts with openssl x509 -inform der / openssl pkey -inform der)';
}
