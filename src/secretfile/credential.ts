import {
  type CookiePair,
  cookieNameProblem,
  cookieValueProblem,
  headerNameProblem,
  headerValueProblem,
  parseRawCookie,
} from '../http/index.js';
import type { CookieSpec, Credential, KeyValue, SecretSpec } from './model.js';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** The names of the `{{name}}` placeholders in `text`, in order (surrounding spaces ignored). */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

const ANY_PLACEHOLDER = /\{\{\s*[^{}\s]+\s*\}\}/;

export function hasPlaceholder(text: string): boolean {
  return ANY_PLACEHOLDER.test(text);
}

/** Replaces `{{name}}` with its value; placeholders without a value are left as written. */
export function fillPlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
}

/** Every string of a secret, in field order. */
export function secretStrings<V>(spec: SecretSpec<V>): V[] {
  switch (spec.type) {
    case 'basicauth':
      return [spec.username, spec.password];
    case 'bearertoken':
      return [spec.token];
    case 'header':
      return spec.headers.flatMap((h) => [h.key, h.value]);
    case 'query':
      return spec.params.flatMap((p) => [p.key, p.value]);
    case 'cookie':
      return spec.cookies.flatMap((c) => (c.kind === 'raw' ? [c.raw] : [c.key, c.value]));
  }
}

/** The same secret with every string mapped. */
export function mapSecret<A, B>(spec: SecretSpec<A>, f: (value: A) => B): SecretSpec<B> {
  const kv = (items: readonly KeyValue<A>[]) => items.map((i) => ({ key: f(i.key), value: f(i.value) }));
  switch (spec.type) {
    case 'basicauth':
      return { type: 'basicauth', username: f(spec.username), password: f(spec.password) };
    case 'bearertoken':
      return { type: 'bearertoken', token: f(spec.token) };
    case 'header':
      return { type: 'header', headers: kv(spec.headers) };
    case 'query':
      return { type: 'query', params: kv(spec.params) };
    case 'cookie':
      return {
        type: 'cookie',
        cookies: spec.cookies.map(
          (c): CookieSpec<B> =>
            c.kind === 'raw'
              ? { kind: 'raw', raw: f(c.raw) }
              : { kind: 'pair', key: f(c.key), value: f(c.value) },
        ),
      };
  }
}

export interface CredentialCheck<V> {
  readonly text: (value: V) => string;
  /** Called for each problem, with the field it is about. */
  readonly report: (value: V, message: string) => void;
  /**
   * Fields for which this returns true are not checked: templated values before the login, values
   * whose reference could not be resolved (already reported).
   */
  readonly skip?: (value: V, text: string) => boolean;
}

/**
 * Checks a resolved secret and builds what is applied to requests: required values non-empty
 * (only a basic-auth password may be empty), names and values that can be sent as they are (no
 * line breaks that would inject headers), raw cookies parsed. Returns undefined when a problem
 * was reported.
 */
export function buildCredential<V>(spec: SecretSpec<V>, check: CredentialCheck<V>): Credential | undefined {
  let ok = true;
  const read = (value: V, problem: (text: string) => string | undefined): string => {
    const text = check.text(value);
    if (check.skip?.(value, text) === true) return text;
    const message = problem(text);
    if (message !== undefined) {
      check.report(value, message);
      ok = false;
    }
    return text;
  };
  const nonEmpty = (what: string, more?: (t: string) => string | undefined) => (text: string) =>
    text === '' ? `${what} is empty; give a value` : more?.(text);
  const credential = ((): Credential => {
    switch (spec.type) {
      case 'basicauth':
        return {
          type: 'basicauth',
          username: read(
            spec.username,
            nonEmpty('the username', (t) =>
              t.includes(':')
                ? 'a basic-auth username cannot contain ":" (it separates it from the password)'
                : undefined,
            ),
          ),
          password: read(spec.password, () => undefined),
        };
      case 'bearertoken':
        return { type: 'bearertoken', token: read(spec.token, nonEmpty('the token', headerValueProblem)) };
      case 'header':
        return {
          type: 'header',
          headers: spec.headers.map((h) => ({
            name: read(h.key, nonEmpty('the header name', headerNameProblem)),
            value: read(h.value, nonEmpty('the header value', headerValueProblem)),
          })),
        };
      case 'query':
        return {
          type: 'query',
          params: spec.params.map((p) => ({
            name: read(p.key, nonEmpty('the parameter name')),
            value: read(p.value, nonEmpty('the parameter value')),
          })),
        };
      case 'cookie':
        return { type: 'cookie', cookies: spec.cookies.flatMap((c) => cookieOf(c, read, nonEmpty)) };
    }
  })();
  return ok ? credential : undefined;
}

function cookieOf<V>(
  cookie: CookieSpec<V>,
  read: (value: V, problem: (text: string) => string | undefined) => string,
  nonEmpty: (what: string, more?: (t: string) => string | undefined) => (text: string) => string | undefined,
): CookiePair[] {
  if (cookie.kind === 'pair') {
    return [
      {
        name: read(cookie.key, nonEmpty('the cookie name', cookieNameProblem)),
        value: read(cookie.value, nonEmpty('the cookie value', cookieValueProblem)),
      },
    ];
  }
  let parsed: CookiePair | undefined;
  read(cookie.raw, (text) => {
    const result = parseRawCookie(text);
    if (!result.ok) return `invalid raw cookie: ${result.reason}`;
    parsed = result.cookie;
    return result.cookie.value === '' ? 'the raw cookie has an empty value' : undefined;
  });
  return parsed === undefined ? [] : [parsed];
}
