/**
 * The `request` and `response` texts of a finding, as nuclei writes them: the request line, headers,
 * blank line and body; the response status line, headers, blank line and body. Bodies are cut at
 * `maxBodyBytes` (default 1 MiB, nuclei's default response size to save) so that a finding stays a
 * reasonable size; bytes that are not UTF-8 show as U+FFFD, as in nuclei's JSON output.
 */
import type { HttpRequest } from './message.js';
import { bodyBytes, serializeRequestHead } from './request-bytes.js';
import type { HttpResponse } from './response.js';

export const defaultDumpBodyBytes = 1024 * 1024;

export interface DumpOptions {
  readonly maxBodyBytes?: number;
}

/**
 * A request as it goes out: its headers in order and casing, plus `Host` first and `Content-Length`
 * last when the request does not set them (the framing headers every HTTP/1.1 request carries).
 */
export function dumpRequest(request: HttpRequest, options: DumpOptions = {}): string {
  const body = bodyBytes(request.body);
  return serializeRequestHead(request, body.length) + bodyText(body, options);
}

/** An `unsafe` request: its bytes as given. */
export function dumpRawRequest(bytes: string | Uint8Array, options: DumpOptions = {}): string {
  const raw = bodyBytes(bytes);
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return bodyText(raw, options);
  return raw.subarray(0, headEnd + 4).toString('utf8') + bodyText(raw.subarray(headEnd + 4), options);
}

/** A response: its head exactly as received, then its decoded body. */
export function dumpResponse(response: HttpResponse, options: DumpOptions = {}): string {
  return response.rawHead + bodyText(response.body, options);
}

function bodyText(body: Buffer, options: DumpOptions): string {
  const max = options.maxBodyBytes ?? defaultDumpBodyBytes;
  return (body.length > max ? body.subarray(0, max) : body).toString('utf8');
}
