/**
 * Turns rendered request text into the request that goes out: raw requests through the tolerant raw
 * parser (joined to the target path), `path:` URLs with the target's query merged in, the block's
 * `headers:` and the scan's `-H` headers set, and the defaults nuclei adds (`User-Agent`; `Accept`
 * and `Accept-Language` on `path:` requests).
 */
import { isIP } from 'node:net';
import {
  authority,
  defaultPort,
  type HeaderField,
  type HeaderList,
  type HttpRequest,
  headerValue,
  type RawHttpRequest,
  RawRequestHead,
  type Scheme,
  setHeader,
} from '../http/index.js';
import { effectivePort, parseTargetUrl, type TargetUrl } from '../targets/index.js';
import {
  escapeInvalidPercentPath,
  mergeQueries,
  parseRawRequest,
  RawRequestError,
} from '../template/index.js';

/** Where an `unsafe` request's bytes go. */
export type Destination = Omit<RawHttpRequest, 'bytes'>;

export interface BuildSettings {
  /** The block's `headers:`, rendered. */
  readonly blockHeaders: HeaderList;
  /** `-H` headers. */
  readonly extraHeaders: HeaderList;
  readonly userAgent: string;
  readonly disablePathAutomerge: boolean;
}

interface Common {
  /** The URL reported as `matched-at` (before any secret is applied). */
  readonly url: string;
  readonly timeoutMs?: number;
  /** `@once`: sent once per run, not once per payload combination. */
  readonly once: boolean;
}

export type BuiltRequest =
  | (Common & { readonly kind: 'http'; readonly request: HttpRequest; readonly tlsServerName?: string })
  | (Common & { readonly kind: 'unsafe'; readonly text: string; readonly destination: Destination });

export class BuildError extends Error {
  override readonly name = 'BuildError';
}

export function buildRawRequest(
  text: string,
  target: TargetUrl,
  settings: BuildSettings,
  unsafe: boolean,
): BuiltRequest | BuildError {
  const parsed = parseRawRequest(text, target, {
    unsafe,
    disablePathAutomerge: settings.disablePathAutomerge,
  });
  if (parsed instanceof RawRequestError) return new BuildError(parsed.message);
  const { annotations } = parsed;
  const destination =
    annotations.host === undefined ? parsed.request : hostAnnotation(annotations.host, parsed.request);
  if (destination instanceof BuildError) return destination;
  const timing = annotations.timeoutMs === undefined ? {} : { timeoutMs: annotations.timeoutMs };
  if (unsafe) {
    const bytes = parsed.unsafeBytes ?? new Uint8Array();
    const raw = withRawHeaders(Buffer.from(bytes).toString('utf8'), settings.extraHeaders);
    const where: Destination = {
      scheme: destination.scheme,
      hostname: destination.hostname,
      port: destination.port,
    };
    return {
      kind: 'unsafe',
      text: raw,
      destination: where,
      url: parsed.url,
      once: annotations.once,
      ...timing,
    };
  }
  let headers: HeaderField[] = [...parsed.request.headers];
  for (const [name, value] of settings.blockHeaders) headers = setHeader(headers, name, value);
  for (const [name, value] of settings.extraHeaders) headers = setHeader(headers, name, value);
  if (headerValue(headers, 'user-agent') === undefined) headers.push(['User-Agent', settings.userAgent]);
  if (headerValue(settings.blockHeaders, 'content-length') !== undefined) {
    headers = withRealLength(headers, parsed.request.headers);
  }
  const request: HttpRequest = {
    ...parsed.request,
    scheme: destination.scheme,
    hostname: destination.hostname,
    port: destination.port,
    headers,
  };
  return {
    kind: 'http',
    request,
    url: parsed.url,
    once: annotations.once,
    ...timing,
    ...tlsServerName(annotations.tlsSni, request),
  };
}

/**
 * `@tls-sni: NAME` presents NAME as the TLS server name; `@tls-sni: request.host` the request's Host
 * header (nuclei's `request_annotations.go`). A port or an IP address is no server name: without one
 * the target's is presented.
 */
function tlsServerName(annotation: string | undefined, request: HttpRequest): { tlsServerName?: string } {
  if (annotation === undefined) return {};
  const value = annotation.replace(/^https?:\/\//i, '');
  const name =
    value === 'request.host' ? (headerValue(request.headers, 'host') ?? authority(request)) : value;
  const hostname = withoutPort(name.trim());
  return hostname === '' || isIP(hostname) !== 0 ? {} : { tlsServerName: hostname };
}

function withoutPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') < 0 ? undefined : host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

/**
 * `@Host: other.example:8443` (scheme optional): the request goes there instead; without a port of
 * its own it keeps the request's, as nuclei does.
 */
function hostAnnotation(value: string, request: HttpRequest): Destination | BuildError {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `${request.scheme}://${value}`;
  const parsed = parseTargetUrl(withScheme);
  if (parsed instanceof Error || (parsed.scheme !== 'http' && parsed.scheme !== 'https')) {
    return new BuildError(`@Host: "${value}" is not a host; write e.g. "@Host: https://other.example:8443"`);
  }
  const ownPort = request.port !== defaultPort(request.scheme);
  const port = parsed.port === '' && ownPort ? request.port : Number(effectivePort(parsed));
  return { scheme: parsed.scheme, hostname: parsed.hostname, port };
}

/**
 * `-H` headers on an `unsafe` request, as nuclei's `TryFillCustomHeaders`: set in the raw text (a
 * header of that name replaced, else added), every other byte kept.
 */
function withRawHeaders(raw: string, headers: HeaderList): string {
  if (headers.length === 0) return raw;
  const head = RawRequestHead.parse(raw);
  if (head === undefined) return raw;
  for (const [name, value] of headers) head.setHeader(name, value);
  return head.toString();
}

export interface PathRequestParts {
  readonly method: string;
  /** The rendered URL (`{{BaseURL}}/login` after rendering). */
  readonly url: string;
  readonly body?: string;
  /** The target's query, merged in first (undefined for self-contained requests). */
  readonly targetQuery?: string;
}

export function buildPathRequest(
  parts: PathRequestParts,
  settings: BuildSettings,
): BuiltRequest | BuildError {
  const parsed = parseTargetUrl(parts.url);
  if (parsed instanceof Error || (parsed.scheme !== 'http' && parsed.scheme !== 'https')) {
    return new BuildError(
      `"${parts.url}" is not an http(s) URL; paths start with {{BaseURL}} or {{RootURL}}`,
    );
  }
  const query = mergeQueries(parts.targetQuery, parsed.query);
  const written = parsed.path === '' ? '/' : parsed.path.startsWith('/') ? parsed.path : `/${parsed.path}`;
  const path = escapeInvalidPercentPath(written);
  const target = query === undefined ? path : `${path}?${query}`;
  const place = {
    scheme: parsed.scheme as Scheme,
    hostname: parsed.hostname,
    port: Number(effectivePort(parsed)),
  };
  const headers = withoutContentLength(pathRequestHeaders(settings, place));
  const request: HttpRequest = {
    method: parts.method,
    scheme: place.scheme,
    hostname: place.hostname,
    port: place.port,
    target,
    headers,
    body: parts.body ?? '',
  };
  const origin = `${parsed.scheme}://${parsed.host}`;
  return { kind: 'http', request, url: `${origin}${target}`, once: false };
}

const ACCEPT: HeaderField = ['Accept', '*/*'];
const ACCEPT_LANGUAGE: HeaderField = ['Accept-Language', 'en'];
/** The User-Agent header of each user agent, made once (header fields are never changed in place). */
const userAgentHeaders = new Map<string, HeaderField>();

/**
 * The headers of a `path:` request: the block's and `-H`'s, then the defaults nuclei adds where they
 * are not set (`User-Agent`, `Accept`, `Accept-Language`), and `Host` first, as Go writes it.
 */
function pathRequestHeaders(
  settings: BuildSettings,
  place: Pick<HttpRequest, 'scheme' | 'hostname' | 'port'>,
): HeaderField[] {
  const host: HeaderField = ['Host', authority(place)];
  if (settings.blockHeaders.length === 0 && settings.extraHeaders.length === 0) {
    // Most requests: the defaults alone, without looking for headers that cannot be there.
    return [host, userAgentHeader(settings.userAgent), ACCEPT, ACCEPT_LANGUAGE];
  }
  let headers: HeaderField[] = [];
  for (const [name, value] of settings.blockHeaders) headers = setHeader(headers, name, value);
  for (const [name, value] of settings.extraHeaders) headers = setHeader(headers, name, value);
  if (headerValue(headers, 'user-agent') === undefined) headers.push(userAgentHeader(settings.userAgent));
  if (headerValue(headers, 'accept') === undefined) headers.push(ACCEPT);
  if (headerValue(headers, 'accept-language') === undefined) headers.push(ACCEPT_LANGUAGE);
  if (headerValue(headers, 'host') === undefined) headers.unshift(host);
  return headers;
}

/**
 * A `Content-Length` of the block's headers is dropped: the HTTP client frames the body with its real
 * length, as Go's client does for nuclei (a written length would cut the body or stall the server).
 */
function withoutContentLength(headers: HeaderField[]): HeaderField[] {
  if (headerValue(headers, 'content-length') === undefined) return headers;
  return headers.filter(([name]) => name.toLowerCase() !== 'content-length');
}

/** A block's `Content-Length` on a raw request gives way to the body's real length, as in nuclei. */
function withRealLength(headers: HeaderField[], parsed: HeaderList): HeaderField[] {
  const realLength = headerValue(parsed, 'content-length');
  if (realLength === undefined) return withoutContentLength(headers);
  return headers.map((field) =>
    field[0].toLowerCase() === 'content-length' ? [field[0], realLength] : field,
  );
}

function userAgentHeader(userAgent: string): HeaderField {
  let header = userAgentHeaders.get(userAgent);
  if (header === undefined) {
    header = ['User-Agent', userAgent];
    if (userAgentHeaders.size < 64) userAgentHeaders.set(userAgent, header);
  }
  return header;
}
