import {
  constants,
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';

/**
 * The protocol's encryption: the server encrypts each interaction with an AES-256 key of the
 * correlation id (CFB, a random IV before the ciphertext) and hands the key over encrypted with the
 * client's RSA public key (OAEP, SHA-256), so only the client that registered reads its interactions.
 */

const AES = 'aes-256-cfb';
const IV_LENGTH = 16;

export interface ClientKeys {
  readonly privateKey: KeyObject;
  /** What the client registers: base64 of the public key's PEM. */
  readonly publicKeyText: string;
}

export function generateClientKeys(): ClientKeys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const pem = `-----BEGIN RSA PUBLIC KEY-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END RSA PUBLIC KEY-----\n`;
  return { privateKey, publicKeyText: Buffer.from(pem).toString('base64') };
}

/** The public key a client registered, or undefined when the text is not one. */
export function readPublicKey(text: string): KeyObject | undefined {
  try {
    const pem = Buffer.from(text, 'base64').toString('utf8');
    const body = /-----BEGIN [A-Z ]+-----([\s\S]+?)-----END [A-Z ]+-----/.exec(pem)?.[1];
    if (body === undefined) return undefined;
    const key = createPublicKey({
      key: Buffer.from(body.replace(/\s+/g, ''), 'base64'),
      format: 'der',
      type: 'spki',
    });
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

export function newAesKey(): Buffer {
  return randomBytes(32);
}

export function encryptKey(publicKey: KeyObject, aesKey: Buffer): string {
  return publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    aesKey,
  ).toString('base64');
}

export function decryptKey(privateKey: KeyObject, encrypted: string): Buffer {
  return privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(encrypted, 'base64'),
  );
}

export function encryptMessage(aesKey: Buffer, plain: string): string {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv(AES, aesKey, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

export function decryptMessage(aesKey: Buffer, encrypted: string): string {
  const bytes = Buffer.from(encrypted, 'base64');
  if (bytes.length < IV_LENGTH) throw new Error('an interaction shorter than its IV');
  const decipher = createDecipheriv(AES, aesKey, bytes.subarray(0, IV_LENGTH));
  return Buffer.concat([decipher.update(bytes.subarray(IV_LENGTH)), decipher.final()]).toString('utf8');
}
