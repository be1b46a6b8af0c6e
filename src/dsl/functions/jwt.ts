/**
 * `generate_jwt(json, algorithm, key?, expiresAtUnix?)`, as projectdiscovery/dsl builds it with
 * kataras/jwt: header `{"alg":…,"typ":"JWT"}`, the claims re-serialized as Go's encoding/json does
 * (keys sorted), base64url without padding.
 *
 * The key argument is text, so only the HMAC algorithms can sign; nuclei's library refuses the
 * RSA, RSA-PSS, ECDSA and EdDSA ones for want of a key object, and so does this helper. `none` (in any
 * case) gives an unsigned token under the name as written, and `""` one named `NONE`.
 */
import { createHmac } from 'node:crypto';
import { textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import { arg, type HelperFunction, ranged, textArg } from './helper.js';
import { type Json, marshal, parseJson } from './json.js';

const HMAC_HASHES: Readonly<Record<string, string>> = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
};

/** Algorithms nuclei names but cannot sign with, since the key it passes is bytes. */
const KEY_OBJECT_ALGORITHMS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EDDSA',
]);

type Signer = { readonly name: string; readonly sign: (input: string, key: Buffer) => Buffer };

function signerFor(algorithm: string): Signer {
  if (algorithm.trim().toLowerCase() === 'none') return { name: algorithm, sign: () => Buffer.alloc(0) };
  const upper = algorithm.toUpperCase();
  if (upper === '') return { name: 'NONE', sign: () => Buffer.alloc(0) };
  const hash = HMAC_HASHES[upper];
  if (hash !== undefined) {
    return { name: upper, sign: (input, key) => createHmac(hash, key).update(input).digest() };
  }
  if (KEY_OBJECT_ALGORITHMS.has(upper)) {
    throw argumentError(
      'generate_jwt',
      `${upper} needs a private key object, which a text argument cannot give (as in nuclei); use HS256, HS384, HS512 or none`,
    );
  }
  throw argumentError('generate_jwt', `invalid algorithm: ${upper}`);
}

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** parseTimeOrNow's reading of a Unix time: decimal text, or a number truncated to an integer. */
function unixSeconds(value: ReturnType<typeof arg>): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^[-+]?\d+$/.test(value)) return Number(value);
  throw argumentError('generate_jwt', 'argument 4 must be a Unix time (seconds)');
}

/**
 * The payload: the claims as Go marshals a map, then, when an expiry is given, kataras/jwt's standard
 * claims appended after them (`iat`, `exp`), as its claim merge does.
 */
function payload(claims: Json, expiresAt: number | undefined, now: number): string {
  const json = marshal(claims);
  // kataras/jwt ignores a lifetime of a second or less
  if (expiresAt === undefined || expiresAt - now <= 1) return json;
  const standard = `"iat":${now},"exp":${expiresAt}`;
  if (json === '{}') return `{${standard}}`;
  if (!json.startsWith('{')) throw argumentError('generate_jwt', 'the claims must be a JSON object');
  return `${json.slice(0, -1)},${standard}}`;
}

export function generateJwt(
  args: readonly ReturnType<typeof arg>[],
  now = Math.floor(Date.now() / 1000),
): string {
  const claims = parseJson('generate_jwt', textArg(args, 0));
  if (claims !== null && (typeof claims !== 'object' || Array.isArray(claims))) {
    throw argumentError('generate_jwt', 'the claims must be a JSON object');
  }
  const signer = signerFor(textArg(args, 1));
  const key = textToBytes(args.length > 2 ? textArg(args, 2) : '');
  const expiresAt = args.length > 3 ? unixSeconds(arg(args, 3)) : undefined;
  const header = base64url(Buffer.from(`{"alg":"${signer.name}","typ":"JWT"}`));
  const signingInput = `${header}.${base64url(textToBytes(payload(claims, expiresAt, now)))}`;
  return `${signingInput}.${base64url(signer.sign(signingInput, Buffer.from(key)))}`;
}

export const jwtFunctions: readonly HelperFunction[] = [
  ranged('generate_jwt', 2, 4, (args) => generateJwt(args)),
];
