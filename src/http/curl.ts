/**
 * The `curl-command` of a finding, in the format nuclei writes (moul.io/http2curl v1.0.0):
 *
 *   curl -X 'POST' -d 'a=1' -H 'Accept: *\/*' -H 'X-Token: t' 'https://host/path?q=1'
 *
 * Every part is single-quoted for a POSIX shell (`'` becomes `'\''`). `-d` is always present, empty
 * for a request without a body, as nuclei writes it. Headers are sorted by name (byte order), and
 * repeated headers are joined with a space under one `-H`; names keep their casing. nuclei leaves
 * the command out for `unsafe` requests, and so should the caller.
 */
import type { HttpRequest } from './message.js';
import { bodyBytes, requestUrl } from './request-bytes.js';

export const defaultCurlBodyBytes = 1024 * 1024;

export function curlCommand(request: HttpRequest, maxBodyBytes = defaultCurlBodyBytes): string {
  const body = bodyBytes(request.body);
  const parts = ['curl', '-X', shellQuote(request.method)];
  parts.push('-d', shellQuote(body.subarray(0, maxBodyBytes).toString('utf8')));
  for (const [name, values] of groupedHeaders(request)) {
    parts.push('-H', shellQuote(`${name}: ${values.join(' ')}`));
  }
  parts.push(shellQuote(requestUrl(request)));
  return parts.join(' ');
}

function groupedHeaders(request: HttpRequest): [string, string[]][] {
  const groups = new Map<string, [string, string[]]>();
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [name, [value]]);
    else group[1].push(value);
  }
  return [...groups.values()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function shellQuote(text: string): string {
  return `'${text.includes("'") ? text.replaceAll("'", "'\\''") : text}'`;
}
