/**
 * `cookie_unsign(cookie)`, as nuclei's: recognises a signed session cookie (Django, Flask, JWT HS*,
 * Rack/Rails, Express cookie-session, Laravel, itsdangerous; URL- or base64-wrapped ones too) and tries
 * the leaked signing keys nuclei embeds. It returns the key that signed the cookie, and fails with
 * "could not decode cookie" or "could not unsign cookie" otherwise, as nuclei's does.
 */
import { bytesToText, textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import { queryUnescape, stdBase64 } from './cookie-encoding.js';
import { COOKIE_FORMATS, type KeyCheck } from './cookie-formats.js';
import { signingKeys } from './cookie-keys.js';
import { type HelperFunction, ranged, textArg } from './helper.js';

type Outcome = { readonly key: Buffer } | { readonly failure: string };

/** Checks of the formats the cookie has, after unwrapping it once when it has none. */
function decodeCookie(cookie: string): KeyCheck[] {
  const checks = formatChecks(cookie);
  if (checks.length > 0) return checks;
  const unwrapped = unwrap(cookie);
  return unwrapped === undefined ? [] : formatChecks(unwrapped);
}

function formatChecks(cookie: string): KeyCheck[] {
  const checks: KeyCheck[] = [];
  for (const format of COOKIE_FORMATS) {
    const check = format.parse(cookie);
    if (check !== undefined) checks.push(check);
  }
  return checks;
}

/** cookiemonster's second chance: URL-decode, then base64-decode, whichever changes the text. */
function unwrap(cookie: string): string | undefined {
  let out = cookie;
  const unescaped = queryUnescape(out);
  if (unescaped !== undefined) out = unescaped;
  const decoded = stdBase64(out)?.toString('latin1');
  if (decoded !== undefined) out = decoded;
  return out === cookie ? undefined : out;
}

/** The first key of `keys` that signed the cookie (a byte string); the list is read only for a cookie it recognises. */
export function unsignCookie(cookie: string, keys: () => readonly Buffer[]): Outcome {
  const checks = decodeCookie(cookie);
  if (checks.length === 0) return { failure: 'could not decode cookie' };
  for (const key of keys()) {
    if (checks.some((check) => check(key))) return { key };
  }
  return { failure: 'could not unsign cookie' };
}

/** Trying every key takes a while; templates often ask about the same cookie again. */
const recent = new Map<string, Outcome>();
const RECENT_LIMIT = 256;

function unsignWithLeakedKeys(cookie: string): Outcome {
  let outcome = recent.get(cookie);
  if (outcome === undefined) {
    outcome = unsignCookie(cookie, loadedKeys);
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
    recent.set(cookie, outcome);
  }
  return outcome;
}

function loadedKeys(): readonly Buffer[] {
  try {
    return signingKeys();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw argumentError('cookie_unsign', `could not load the signing-key list: ${reason}`);
  }
}

export const cookieFunctions: readonly HelperFunction[] = [
  // nuclei's reads its first argument and ignores any other.
  ranged('cookie_unsign', 1, Number.POSITIVE_INFINITY, (args) => {
    const outcome = unsignWithLeakedKeys(textToBytes(textArg(args, 0)).toString('latin1'));
    if ('failure' in outcome) throw argumentError('cookie_unsign', outcome.failure);
    return bytesToText(outcome.key);
  }),
];
