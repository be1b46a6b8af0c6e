/** A cookie as sent in a `Cookie` request header: `name=value`. */
export interface CookiePair {
  readonly name: string;
  readonly value: string;
}

/**
 * Merges `cookies` into the text of one or more `Cookie` header values and returns the single
 * header value to send. An existing cookie with the same name (names are case-sensitive, RFC 6265)
 * is replaced where it stands and its later duplicates dropped; other cookies keep their place and
 * their exact text; new cookies are appended in the order given.
 */
export function mergeCookieHeader(existing: readonly string[], cookies: readonly CookiePair[]): string {
  const segments: { name: string | undefined; text: string }[] = [];
  for (const header of existing) {
    for (const part of header.split(';')) {
      const text = part.trim();
      if (text === '') continue;
      const eq = text.indexOf('=');
      segments.push({ name: eq < 0 ? undefined : text.slice(0, eq).trim(), text });
    }
  }
  const wanted = new Map<string, CookiePair>();
  for (const cookie of cookies) wanted.set(cookie.name, cookie);
  const placed = new Set<string>();
  const out: string[] = [];
  for (const segment of segments) {
    const replacement = segment.name === undefined ? undefined : wanted.get(segment.name);
    if (replacement === undefined) out.push(segment.text);
    else if (!placed.has(replacement.name)) {
      out.push(`${replacement.name}=${replacement.value}`);
      placed.add(replacement.name);
    }
  }
  for (const cookie of wanted.values()) {
    if (!placed.has(cookie.name)) out.push(`${cookie.name}=${cookie.value}`);
  }
  return out.join('; ');
}

export type RawCookieResult =
  | { readonly ok: true; readonly cookie: CookiePair }
  | { readonly ok: false; readonly reason: string };

const SET_COOKIE_PREFIX = /^\s*set-cookie\s*:\s*/i;

/**
 * Reads a cookie written as one text, the way a `Set-Cookie` header or a browser's cookie pane shows
 * it: an optional `Set-Cookie:` prefix is dropped, only the text up to the first `;` counts
 * (attributes such as `Path` are ignored), and it is split at the first `=`, so values may contain
 * `=` (base64 padding, JWTs).
 */
export function parseRawCookie(raw: string): RawCookieResult {
  const pair = (raw.replace(SET_COOKIE_PREFIX, '').split(';', 1)[0] ?? '').trim();
  const eq = pair.indexOf('=');
  if (eq < 0) return { ok: false, reason: `expected name=value, found ${JSON.stringify(raw)}` };
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  const problem = cookieNameProblem(name) ?? cookieValueProblem(value);
  if (problem !== undefined) return { ok: false, reason: problem };
  return { ok: true, cookie: { name, value } };
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why `name` cannot be a cookie (or header) name, or undefined when it can. */
export function cookieNameProblem(name: string): string | undefined {
  if (name === '') return 'the cookie name is empty';
  if (!TOKEN.test(name)) {
    return `the cookie name ${JSON.stringify(name)} may only hold letters, digits and !#$%&'*+-.^_\`|~`;
  }
  return undefined;
}

/** Why `value` cannot be sent as a cookie value, or undefined when it can. */
export function cookieValueProblem(value: string): string | undefined {
  if (/[;\u0000-\u001f\u007f]/.test(value)) {
    return 'the cookie value must not contain ";" or control characters (line breaks, tabs)';
  }
  return undefined;
}
