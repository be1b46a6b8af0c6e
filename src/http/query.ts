/** A query parameter as the secret file or a template gives it: unencoded name and value. */
export interface QueryParam {
  readonly name: string;
  readonly value: string;
}

/**
 * Sets query parameters on a request-target (origin-form `/a?b=1` or absolute-form
 * `http://h/a?b=1`), editing only the query text: the path, the other parameters and their
 * encoding stay exactly as written. A parameter that is already present (names compared after
 * decoding, so `tok%65n` is `token`) is replaced where it stands and its later duplicates dropped;
 * new ones are appended in the order given. Names and values are percent-encoded.
 */
export function setQueryParams(target: string, params: readonly QueryParam[]): string {
  if (params.length === 0) return target;
  const hash = target.indexOf('#');
  const beforeHash = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? '' : target.slice(hash);
  const question = beforeHash.indexOf('?');
  const path = question < 0 ? beforeHash : beforeHash.slice(0, question);
  const query = question < 0 ? '' : beforeHash.slice(question + 1);

  const wanted = new Map<string, QueryParam>();
  for (const param of params) wanted.set(param.name, param);
  const placed = new Set<string>();
  const out: string[] = [];
  for (const segment of query === '' ? [] : query.split('&')) {
    const eq = segment.indexOf('=');
    const name = decodeQueryComponent(eq < 0 ? segment : segment.slice(0, eq));
    const replacement = wanted.get(name);
    if (replacement === undefined) out.push(segment);
    else if (!placed.has(name)) {
      out.push(encodeParam(replacement));
      placed.add(name);
    }
  }
  for (const param of wanted.values()) {
    if (!placed.has(param.name)) out.push(encodeParam(param));
  }
  return `${path}?${out.join('&')}${fragment}`;
}

/** Decodes `+` and percent-escapes as form decoding does; malformed escapes are kept as written. */
export function decodeQueryComponent(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Percent-encodes everything outside RFC 3986's unreserved characters. */
export function encodeQueryComponent(text: string): string {
  let out = '';
  // TextEncoder rather than encodeURIComponent: it never throws (a lone surrogate becomes U+FFFD).
  for (const byte of utf8.encode(text)) {
    out += UNRESERVED[byte] === 1 ? String.fromCharCode(byte) : HEX[byte];
  }
  return out;
}

const utf8 = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`);
const UNRESERVED = Array.from({ length: 256 }, (_, b) =>
  /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) && b < 128 ? 1 : 0,
);

function encodeParam(param: QueryParam): string {
  return `${encodeQueryComponent(param.name)}=${encodeQueryComponent(param.value)}`;
}
