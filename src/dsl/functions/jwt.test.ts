import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';
import { generateJwt } from './jwt.js';

function failure(source: string): DslEvaluationError {
  try {
    evaluate(source);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('generate_jwt', () => {
  it('signs HS256 over the claims re-serialized with their keys sorted, as Go marshals a map', () => {
    expect(
      evaluate(
        `generate_jwt('{"sub":"1234567890","name":"John Doe","iat":1516239022}', "HS256", "your-256-bit-secret")`,
      ),
    ).toBe(
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE1MTYyMzkwMjIsIm5hbWUiOiJKb2huIERvZSIsInN1YiI6IjEyMzQ1Njc4OTAifQ.fdOPQ05ZfRhkST2-rIWgUpbqUsVhkkNVNcuG7Ki0s-8',
    );
  });

  it('takes the algorithm in any case and escapes HTML characters in the claims as Go does', () => {
    expect(evaluate(`generate_jwt('{"a":"<b>"}', "hs512", "k")`)).toBe(
      'eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.eyJhIjoiXHUwMDNjYlx1MDAzZSJ9.D7sQxEU_3D0mMrJ8ujRlZFCYzb0aG4TaywbzMKpsvNwVD8xK_zS0Pe1PS08S9nchgTNtejNBO26NLVOjY10uPg',
    );
  });

  it('gives an unsigned token for "none", keeping the name as written, with the trailing dot', () => {
    expect(evaluate(`generate_jwt('{"user":"admin"}', "none")`)).toBe(
      'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1c2VyIjoiYWRtaW4ifQ.',
    );
    const header = (token: string) => Buffer.from(token.split('.')[0] as string, 'base64url').toString();
    expect(header(evaluate(`generate_jwt('{}', "NoNe")`) as string)).toBe('{"alg":"NoNe","typ":"JWT"}');
    expect(header(evaluate(`generate_jwt('{}', "")`) as string)).toBe('{"alg":"NONE","typ":"JWT"}');
  });

  it('appends iat (now) and exp (the given Unix time) after the claims when an expiry is given', () => {
    expect(generateJwt(['{"user":"admin"}', 'HS384', 's', 1_700_003_600], 1_700_000_000)).toBe(
      'eyJhbGciOiJIUzM4NCIsInR5cCI6IkpXVCJ9.eyJ1c2VyIjoiYWRtaW4iLCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwMzYwMH0.AcF9NDYiHNMPiup0Hy2zinJ0JYr-NqRMEkF6TliUFgwjwPrH-22jYIHrzARZ3D6n',
    );
    expect(generateJwt(['{"user":"admin"}', 'HS384', 's', '1700003600'], 1_700_000_000)).toMatch(
      /^eyJhbGciOiJIUzM4NCIsInR5cCI6IkpXVCJ9\.eyJ1c2VyIjoiYWRtaW4iLCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwMzYwMH0\./,
    );
  });

  it('adds no time claims for an expiry already past or within a second, as kataras/jwt ignores it', () => {
    const payload = (token: string) => Buffer.from(token.split('.')[1] as string, 'base64url').toString();
    expect(payload(generateJwt(['{"a":1}', 'HS256', 'k', 1_000], 1_700_000_000))).toBe('{"a":1}');
    expect(payload(generateJwt(['{"a":1}', 'HS256', 'k', 1_700_000_001], 1_700_000_000))).toBe('{"a":1}');
    expect(payload(generateJwt(['{}', 'HS256', 'k', 1_700_000_100], 1_700_000_000))).toBe(
      '{"iat":1700000000,"exp":1700000100}',
    );
  });

  it('refuses what nuclei refuses, saying why', () => {
    expect(failure(`generate_jwt('{"a":1}', "RS256", "key")`).message).toMatch(
      /RS256 needs a private key object.*HS256/,
    );
    expect(failure(`generate_jwt('{"a":1}', "HS999", "key")`).message).toBe(
      'generate_jwt: invalid algorithm: HS999',
    );
    expect(failure(`generate_jwt('not json', "HS256", "key")`).message).toMatch(/not valid JSON/);
    expect(failure(`generate_jwt('[1]', "HS256", "key")`).message).toMatch(/JSON object/);
    expect(failure(`generate_jwt('{}', "HS256", "key", "soon")`).message).toMatch(
      /argument 4 must be a Unix time/,
    );
  });
});
