/**
 * HTTP messages as the scanner builds and sends them. A request keeps its request-target exactly as
 * written (no normalisation of `..`, `..;` or percent-escapes) and its headers as an ordered list
 * with their original casing, because templates probe servers with exactly those bytes.
 */

export type HeaderField = readonly [name: string, value: string];
export type HeaderList = readonly HeaderField[];

export type Scheme = 'http' | 'https';

export interface HttpRequest {
  readonly method: string;
  readonly scheme: Scheme;
  /** Host name or IP address as in the URL (IPv6 without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** The request-target as sent: origin-form (`/a/../b?x=1`) or absolute-form. */
  readonly target: string;
  readonly headers: HeaderList;
  readonly body: string | Uint8Array;
}

export function defaultPort(scheme: Scheme): number {
  return scheme === 'https' ? 443 : 80;
}

/**
 * True when header name `name` is `lower` (already lower-case) in any ASCII casing, as HTTP compares
 * names. Compared in place rather than through a lower-cased copy: every request's headers are
 * looked up a dozen times on their way out, and a copy per look was a measurable share of a scan's
 * garbage.
 */
export function isHeaderName(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < name.length; i++) {
    const have = name.charCodeAt(i);
    const want = lower.charCodeAt(i);
    // ASCII letters only differ in case by 0x20; no other character is folded.
    if (have !== want && !((have | 0x20) === want && want >= 0x61 && want <= 0x7a)) return false;
  }
  return true;
}

/** Values of every header called `name`, compared case-insensitively, in order. */
export function headerValues(headers: HeaderList, name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([n]) => isHeaderName(n, lower)).map(([, v]) => v);
}

export function headerValue(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [n, v] of headers) if (isHeaderName(n, lower)) return v;
  return undefined;
}

/**
 * Sets `name` to `value`: the first header of that name (any casing) is replaced in place with the
 * given casing, later ones are removed; appended when absent.
 */
export function setHeader(headers: HeaderList, name: string, value: string): HeaderField[] {
  const lower = name.toLowerCase();
  const out: HeaderField[] = [];
  let placed = false;
  for (const field of headers) {
    if (!isHeaderName(field[0], lower)) out.push(field);
    else if (!placed) {
      out.push([name, value]);
      placed = true;
    }
  }
  if (!placed) out.push([name, value]);
  return out;
}

export function removeHeader(headers: HeaderList, name: string): HeaderField[] {
  const lower = name.toLowerCase();
  return headers.filter(([n]) => !isHeaderName(n, lower));
}
