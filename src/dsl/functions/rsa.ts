/**
 * `rsa_encrypt(plaintext, publicKeyPem)`: PKCS#1 v1.5 encryption under an RSA key given as a PEM
 * block holding a PKIX SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`), base64 of the ciphertext,
 * as projectdiscovery/dsl does. A PKCS#1 `RSA PUBLIC KEY` block is refused there and here.
 */
import { constants, createPublicKey, type KeyObject, publicEncrypt } from 'node:crypto';
import { textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import { fixed, type HelperFunction } from './helper.js';

const PEM_BLOCK = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/;

function publicKey(pem: string): KeyObject {
  const block = PEM_BLOCK.exec(pem);
  const body = block?.[2]?.replace(/\s+/g, '') ?? '';
  if (block === null || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) {
    throw argumentError('rsa_encrypt', 'argument 2 must be a PEM block ("-----BEGIN PUBLIC KEY-----" …)');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(body, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw argumentError('rsa_encrypt', 'the PEM block is not a PKIX public key ("BEGIN PUBLIC KEY")');
  }
  if (key.asymmetricKeyType !== 'rsa') throw argumentError('rsa_encrypt', 'not an RSA public key');
  return key;
}

export const rsaFunctions: readonly HelperFunction[] = [
  fixed('rsa_encrypt', 2, (args) => {
    const [plaintext, pem] = args;
    if (typeof plaintext !== 'string' || typeof pem !== 'string') {
      throw argumentError('rsa_encrypt', 'takes two strings: the plaintext and a PEM public key');
    }
    const key = publicKey(pem);
    const data = textToBytes(plaintext);
    // PKCS#1 v1.5 leaves 11 bytes of the modulus for its padding
    const modulusBytes = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
    if (data.length > modulusBytes - 11) {
      throw argumentError('rsa_encrypt', 'RSA encryption failed: message too long for RSA key size');
    }
    return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, data).toString('base64');
  }),
];
