import { defaultPort, type HeaderField, type HttpRequest, headerValue } from './message.js';

/** `host[:port]` as in a Host header or URL: IPv6 in brackets, the scheme's default port left out. */
export function authority(request: Pick<HttpRequest, 'scheme' | 'hostname' | 'port'>): string {
  const host = request.hostname.includes(':') ? `[${request.hostname}]` : request.hostname;
  return request.port === defaultPort(request.scheme) ? host : `${host}:${request.port}`;
}

/** `scheme://host:port` with the port always written: the key of a connection pool. */
export function originOf(request: Pick<HttpRequest, 'scheme' | 'hostname' | 'port'>): string {
  const host = request.hostname.includes(':') ? `[${request.hostname}]` : request.hostname;
  return `${request.scheme}://${host}:${request.port}`;
}

const absoluteForm = /^https?:\/\/[^/?#]*/i;

/**
 * The URL a request goes to: the scheme and authority it connects to, then its target as written
 * (not normalised). An absolute-form target (`GET http://other/x`) contributes only its path: the
 * URL names where the bytes went, which is what cookies, secrets and findings are about.
 */
export function requestUrl(request: Pick<HttpRequest, 'scheme' | 'hostname' | 'port' | 'target'>): string {
  // An origin-form target (nearly every request) has no scheme and authority to drop.
  const target = request.target.startsWith('/') ? request.target : request.target.replace(absoluteForm, '');
  const base = `${request.scheme}://${authority(request)}`;
  return target.startsWith('/') ? `${base}${target}` : `${base}/${target}`;
}

const payloadMethods = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/** Methods whose requests carry `Content-Length: 0` even without a body (as undici and Go send them). */
export function expectsPayload(method: string): boolean {
  return payloadMethods.has(method);
}

/** Shared by every empty body: a zero-length buffer has no byte to change. */
const NO_BYTES = Buffer.alloc(0);

export function bodyBytes(body: string | Uint8Array): Buffer {
  if (body === '') return NO_BYTES;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * The header lines a request goes out with: its own, in order and casing, plus the two that HTTP/1.1
 * framing needs when the request does not set them: `Host` first, `Content-Length` last.
 */
export function wireHeaders(request: HttpRequest, bodyLength: number): HeaderField[] {
  const headers: HeaderField[] = [];
  if (headerValue(request.headers, 'host') === undefined) headers.push(['Host', authority(request)]);
  headers.push(...request.headers);
  const framed =
    headerValue(request.headers, 'content-length') !== undefined ||
    headerValue(request.headers, 'transfer-encoding') !== undefined;
  if (!framed && (bodyLength > 0 || expectsPayload(request.method))) {
    headers.push(['Content-Length', String(bodyLength)]);
  }
  return headers;
}

/** Request line, header lines and the blank line, as text. */
export function serializeRequestHead(request: HttpRequest, bodyLength: number): string {
  let head = `${request.method} ${request.target} HTTP/1.1\r\n`;
  for (const [name, value] of wireHeaders(request, bodyLength)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n`;
}

/** The bytes of a request on the wire; text is encoded as UTF-8. */
export function serializeRequest(request: HttpRequest): Buffer {
  const wire = requestWireForm(request);
  return typeof wire === 'string' ? Buffer.from(wire, 'utf8') : wire;
}

/**
 * What goes on the wire: a request without a body as its head's text (a socket writes text as
 * UTF-8 without a buffer of ours in between), else the head's and the body's bytes.
 */
export function requestWireForm(request: HttpRequest): string | Buffer {
  const body = bodyBytes(request.body);
  const head = serializeRequestHead(request, body.length);
  return body.length === 0 ? head : Buffer.concat([Buffer.from(head, 'utf8'), body]);
}
