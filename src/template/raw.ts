import type { HeaderField, HttpRequest, Scheme } from '../http/index.js';
import { effectivePort, parseTargetUrl, rootUrl, type TargetUrl } from '../targets/index.js';
import { escapeInvalidPercentPath } from './escape.js';
import { mergePaths, mergeQueries } from './target.js';

/** Leading `@name: value` lines of a raw request (`request_annotations.go`). */
export interface RawAnnotations {
  /** `@Host:` sends the request to another host (scheme and port optional). */
  readonly host?: string;
  /** `@tls-sni:` the TLS server name to present (`request.host` = the Host header). */
  readonly tlsSni?: string;
  /** `@timeout:` a per-request timeout; nuclei caps it at five minutes and ignores one that is not a duration. */
  readonly timeoutMs?: number;
  /** `@once`: send this request once per target, not once per payload combination. */
  readonly once: boolean;
}

export interface ParsedRawRequest {
  /** The request as sent: its request-target exactly as nuclei builds it, never normalised. */
  readonly request: HttpRequest;
  /** The HTTP version token of the request line (`HTTP/1.1`, `HTTP/2`, …), `''` when absent. */
  readonly httpVersion: string;
  /** `scheme://host` + request-target: the URL reported as `matched-at`. */
  readonly url: string;
  readonly annotations: RawAnnotations;
  /**
   * For `unsafe: true`: the rendered text to write to the socket byte for byte, with the request
   * path merged with the target path as nuclei does and the leading annotation lines removed.
   */
  readonly unsafeBytes?: Uint8Array;
}

export class RawRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RawRequestError';
  }
}

export interface RawParseOptions {
  readonly unsafe?: boolean;
  /** `disable-path-automerge: true`: the request path replaces the target path instead of joining it. */
  readonly disablePathAutomerge?: boolean;
}

/** nuclei caps `@timeout` at five minutes so that a template cannot stall a scan. */
export const MAX_ANNOTATION_TIMEOUT_MS = 300_000;

/**
 * Parses a rendered raw request as tolerantly as nuclei's `raw.go`: leading `@annotations`, runs of
 * spaces in the request line, `GET HTTP/1.1` (empty path: the target path is kept), an absolute URL
 * in the request line (its path is joined onto the target path), any HTTP version token, headers
 * with or without a space after `:` and with empty values, and a body that ends at the end of the
 * text (one trailing CRLF dropped unless the body is multipart). The request is sent to the target;
 * its `Host` header is the one written, or the target's when absent.
 */
export function parseRawRequest(
  text: string,
  target: TargetUrl,
  options: RawParseOptions = {},
): ParsedRawRequest | RawRequestError {
  const unsafe = options.unsafe === true;
  const scheme = schemeOf(target);
  if (scheme instanceof RawRequestError) return scheme;

  const lines = splitLinesKeepingEnds(text);
  let index = 0;
  const annotationLines: string[] = [];
  while (index < lines.length && (lines[index] ?? '').startsWith('@')) {
    annotationLines.push(lines[index] ?? '');
    index++;
  }
  const annotations = parseAnnotations(annotationLines);
  if (annotations instanceof RawRequestError) return annotations;
  const requestLineIndex = index;
  const requestLine = lines[index] ?? '';
  index++;
  const parts = requestLine
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  if (parts.length === 0) {
    return new RawRequestError('the raw request has no request line; start it with e.g. "GET / HTTP/1.1"');
  }
  const method = parts[0] ?? '';
  let path: string;
  let httpVersion: string;
  if (parts.length === 2 && (parts[1] ?? '').includes('HTTP')) {
    path = '';
    httpVersion = parts[1] ?? '';
  } else if (parts.length < 3 && !unsafe) {
    return new RawRequestError(
      `malformed request line "${requestLine.trim()}"; write "METHOD PATH HTTP/1.1", e.g. "GET /login HTTP/1.1"`,
    );
  } else {
    path = parts[1] ?? '';
    httpVersion = parts[2] ?? '';
  }

  const headers: HeaderField[] = [];
  let multipart = false;
  for (; index < lines.length; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '') {
      index++;
      break;
    }
    const colon = line.indexOf(':');
    const name = (colon < 0 ? line : line.slice(0, colon)).trim();
    const value = colon < 0 ? '' : line.slice(colon + 1).trim();
    if (name === '') continue;
    if (name.includes('Content-Type') && value.includes('multipart/')) multipart = true;
    addHeader(headers, name, value, unsafe);
  }
  let body = lines.slice(index).join('');
  if (!multipart && body.endsWith('\r\n')) body = body.slice(0, -2);

  const merged = mergeRequestPath(path, target, unsafe, options.disablePathAutomerge === true);
  if (merged instanceof RawRequestError) return merged;
  const written = merged === '' ? '/' : merged;
  const requestTarget = unsafe ? written : escapeInvalidPercentPath(written);

  if (!unsafe && !headers.some(([n]) => n === 'Host')) headers.unshift(['Host', target.host]);
  if (!unsafe) fixContentLength(headers, body);

  const port = Number.parseInt(effectivePort(target), 10);
  const request: HttpRequest = {
    method,
    scheme,
    hostname: target.hostname,
    port,
    target: requestTarget,
    headers,
    body,
  };
  const url = requestTarget.startsWith('/') ? `${rootUrl(target)}${requestTarget}` : requestTarget;
  const result: ParsedRawRequest = { request, httpVersion, url, annotations };
  if (!unsafe) return result;
  const withoutAnnotations = lines.slice(requestLineIndex).join('');
  const rewritten = path === '' ? withoutAnnotations : withoutAnnotations.replace(path, requestTarget);
  return { ...result, unsafeBytes: Buffer.from(rewritten, 'utf8') };
}

function schemeOf(target: TargetUrl): Scheme | RawRequestError {
  if (target.scheme === 'http' || target.scheme === 'https') return target.scheme;
  return new RawRequestError(
    target.scheme === ''
      ? `the target "${target.host}" has no scheme; give http://… or https://…`
      : `the scheme "${target.scheme}" is not HTTP; give http://… or https://…`,
  );
}

/** Lines with their `\n` (or `\r\n`) kept, so the body can be rebuilt byte for byte. */
function splitLinesKeepingEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/**
 * A repeated header name keeps its first position and takes the last value, as nuclei's header map
 * does; `unsafe` requests keep every line, since duplicate headers are often the point of them.
 */
function addHeader(headers: HeaderField[], name: string, value: string, unsafe: boolean): void {
  if (!unsafe) {
    const existing = headers.findIndex(([n]) => n === name);
    if (existing >= 0) {
      headers[existing] = [name, value];
      return;
    }
  }
  headers.push([name, value]);
}

/** A written Content-Length is corrected to the body actually sent (Go's client does the same). */
function fixContentLength(headers: HeaderField[], body: string): void {
  const at = headers.findIndex(([n]) => n.toLowerCase() === 'content-length');
  if (at < 0) return;
  const name = headers[at]?.[0] ?? 'Content-Length';
  headers[at] = [name, String(Buffer.byteLength(body, 'utf8'))];
}

function mergeRequestPath(
  written: string,
  target: TargetUrl,
  unsafe: boolean,
  disableAutomerge: boolean,
): string | RawRequestError {
  const targetPath = disableAutomerge ? '' : target.path;
  if (written === '') {
    return disableAutomerge ? '' : joinQuery(target.path, target.query);
  }
  if (written.startsWith('http') && !unsafe) {
    const absolute = parseTargetUrl(written);
    if (absolute instanceof Error) {
      return new RawRequestError(`the request line holds "${written}", which is not a valid URL`);
    }
    return joinQuery(mergePaths(targetPath, absolute.path), mergeQueries(target.query, absolute.query));
  }
  const { path, query } = splitQuery(written);
  if (unsafe && (target.path === '' || target.path === '/') && !written.startsWith('/')) {
    // nuclei keeps such paths (`GET 1337?x=1`, an absolute URL) as written in unsafe requests
    return target.query === undefined || target.query === ''
      ? written
      : `${written}${query === undefined ? '?' : '&'}${target.query}`;
  }
  // nuclei drops a request-target of just `/` (so `GET / HTTP/1.1` is the target's own path), not
  // the `/` of `/?x=1`, which joins the target's path as `/app/?x=1`
  const own = path === '/' && query === undefined ? '' : path;
  return joinQuery(mergePaths(targetPath, own), mergeQueries(target.query, query));
}

function splitQuery(pathAndQuery: string): { path: string; query?: string } {
  const hash = pathAndQuery.indexOf('#');
  const withoutFragment = hash >= 0 ? pathAndQuery.slice(0, hash) : pathAndQuery;
  const question = withoutFragment.indexOf('?');
  if (question < 0) return { path: withoutFragment };
  return { path: withoutFragment.slice(0, question), query: withoutFragment.slice(question + 1) };
}

function joinQuery(path: string, query: string | undefined): string {
  const withSlash = path !== '' && !path.startsWith('/') ? `/${path}` : path;
  if (query === undefined || query === '') return withSlash;
  // `GET /?p=1` on a target without a path: the query still needs its `/`
  return `${withSlash === '' ? '/' : withSlash}?${query}`;
}

function parseAnnotations(lines: readonly string[]): RawAnnotations | RawRequestError {
  let host: string | undefined;
  let tlsSni: string | undefined;
  let timeoutMs: number | undefined;
  let once = false;
  for (const raw of lines) {
    const line = raw.trim();
    const match = /^@([A-Za-z-]+)(?::\s*(.*))?$/.exec(line);
    if (match === null) continue;
    const name = (match[1] ?? '').toLowerCase();
    const value = (match[2] ?? '').trim();
    if (name === 'host' && value !== '') host = value;
    else if (name === 'tls-sni' && value !== '') tlsSni = value;
    else if (name === 'once') once = true;
    else if (name === 'timeout') {
      const ms = parseGoDuration(value);
      if (ms !== undefined) timeoutMs = Math.min(ms, MAX_ANNOTATION_TIMEOUT_MS);
    }
  }
  return {
    ...(host === undefined ? {} : { host }),
    ...(tlsSni === undefined ? {} : { tlsSni }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    once,
  };
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's `time.ParseDuration` (`10s`, `1m30s`, `1.5h`, `500ms`), in milliseconds. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const unit = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    unit.lastIndex = at;
    const match = unit.exec(trimmed);
    if (match === null) return undefined;
    total += Number.parseFloat(match[1] ?? '0') * (DURATION_UNITS[match[2] ?? ''] ?? 0);
    at = unit.lastIndex;
  }
  return at === 0 ? undefined : total;
}
