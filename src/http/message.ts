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

/** Values of every header called `name`, compared case-insensitively, in order. */
export function headerValues(headers: HeaderList, name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

export function headerValue(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [n, v] of headers) if (n.toLowerCase() === lower) return v;
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
    if (field[0].toLowerCase() !== lower) out.push(field);
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
  return headers.filter(([n]) => n.toLowerCase() !== lower);
}
