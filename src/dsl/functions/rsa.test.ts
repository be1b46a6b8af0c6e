import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const spkiPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** PKCS#1 v1.5 decryption done by hand: Node refuses that padding for decryption. */
function decrypt(base64: string): string {
  const block = privateDecrypt(
    { key: privateKey, padding: constants.RSA_NO_PADDING },
    Buffer.from(base64, 'base64'),
  );
  expect([block[0], block[1]]).toEqual([0, 2]);
  return block.subarray(block.indexOf(0, 2) + 1).toString();
}

function failure(source: string, variables = {}): DslEvaluationError {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('rsa_encrypt', () => {
  it('encrypts with PKCS#1 v1.5 under a PKIX PEM key, base64, randomly padded each time', () => {
    const first = evaluate('rsa_encrypt("p@ssw0rd", key)', { key: spkiPem }) as string;
    const second = evaluate('rsa_encrypt("p@ssw0rd", key)', { key: spkiPem }) as string;
    expect(Buffer.from(first, 'base64')).toHaveLength(128);
    expect(decrypt(first)).toBe('p@ssw0rd');
    expect(decrypt(second)).toBe('p@ssw0rd');
    expect(first).not.toBe(second);
  });

  it('finds the PEM block inside surrounding text, as Go does', () => {
    expect(decrypt(evaluate('rsa_encrypt("x", key)', { key: `key:\n${spkiPem}\ntrailer` }) as string)).toBe(
      'x',
    );
  });

  it('refuses a PKCS#1 block, a non-RSA key, no PEM at all and a message longer than the key allows', () => {
    const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(failure('rsa_encrypt("x", key)', { key: pkcs1 }).message).toMatch(/not a PKIX public key/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    expect(failure('rsa_encrypt("x", key)', { key: ec.toString() }).message).toBe(
      'rsa_encrypt: not an RSA public key',
    );
    expect(failure('rsa_encrypt("x", "abc")').message).toMatch(/must be a PEM block/);
    expect(failure('rsa_encrypt(repeat("a", 118), key)', { key: spkiPem }).message).toMatch(
      /message too long/,
    );
  });
});
