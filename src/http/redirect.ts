/**
 * Sends a request and follows its redirects the way a template asks (`redirects`, `host-redirects`,
 * `max-redirects`), returning every hop: nuclei runs matchers on each response of the chain.
 *
 * Secrets and redirects. The secret to apply is decided per request host, so it must be decided
 * again on every hop, and a hop to another host must carry nothing of the previous host's secret.
 * The follower guarantees this by construction: each hop is derived from the *clean* request, the
 * one it handed to `send` (the first request as the engine built it, without any secret), never
 * from what `send` put on the wire. Whatever `send` adds on one hop (Authorization, a secret's
 * cookies or headers, query parameters, the jar's cookies) is therefore absent from the request it
 * receives for the next hop, and it decides afresh for the new host.
 *
 * On top of that, as Go's client (and so nuclei) does, credentials the template itself set
 * (Authorization, Proxy-Authorization, Cookie, Cookie2, WWW-Authenticate) follow a redirect only
 * to the same host name and port as the first request (an http→https upgrade on default ports
 * counts as the same); the cookie jar then adds the cookies of the new host.
 *
 * Method and body, as Go: 301/302/303 turn any method but GET and HEAD into GET and drop the body
 * (with its Content-* headers); 307/308 keep both. Other statuses, a missing or unparsable Location,
 * or a non-http(s) Location end the chain (the 3xx is the last hop); so do the policy and the limit
 * (the template's `max-redirects`, at most {@link maxRedirectsCeiling}). The time the chain may take
 * is bounded by its sends (see budget.ts), not here.
 */
import { defaultPort, type HeaderField, type HttpRequest, headerValue, type Scheme } from './message.js';
import { authority, requestUrl } from './request-bytes.js';
import type { HttpResponse } from './response.js';

/** `none`: never follow; `same-host`: only to the first request's host (`host-redirects`); `any`. */
export type RedirectPolicy = 'none' | 'same-host' | 'any';

/** nuclei's default, also used when a template says `max-redirects: 0`. */
export const defaultMaxRedirects = 10;

/**
 * The most redirects followed whatever a template asks (nuclei sets no such bound): browsers stop
 * at 20 too, so no site needs more, and every hop is a request and a response held until the chain
 * ends.
 */
export const maxRedirectsCeiling = 20;

/** A hop of a chain: the clean request handed to `send`, and its response. */
export interface Hop {
  readonly request: HttpRequest;
  readonly response: HttpResponse;
}

export interface FollowOptions {
  /**
   * Sends one hop: `request` is clean (derived from the first request, never from what was sent);
   * `hop` is 0 for the first request, n for the n-th redirect.
   */
  readonly send: (request: HttpRequest, hop: number) => Promise<HttpResponse>;
  readonly policy: RedirectPolicy;
  readonly maxRedirects?: number;
}

/** Sends `request` and the redirects it leads to; the hops in order, the first request's first. */
export async function sendFollowingRedirects(request: HttpRequest, options: FollowOptions): Promise<Hop[]> {
  const max =
    options.maxRedirects === undefined || options.maxRedirects <= 0
      ? defaultMaxRedirects
      : Math.min(options.maxRedirects, maxRedirectsCeiling);
  const hops: Hop[] = [];
  let clean = request;
  for (let hop = 0; ; hop++) {
    const response = await options.send(clean, hop);
    hops.push({ request: clean, response });
    if (options.policy === 'none' || hop >= max) return hops;
    const next = redirectedRequest(request, clean, response);
    if (next === undefined) return hops;
    if (options.policy === 'same-host' && hostKey(next) !== firstHostKey(request)) return hops;
    clean = next;
  }
}

const followed = new Set([301, 302, 303, 307, 308]);
const credentialHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'www-authenticate',
  'cookie',
  'cookie2',
]);
const bodyHeaders = new Set([
  'content-length',
  'content-type',
  'transfer-encoding',
  'content-encoding',
  'content-language',
  'content-location',
]);

/**
 * The clean request of the next hop, or undefined when `response` does not redirect. `first` is the
 * chain's first clean request (headers are copied from it, as Go does), `current` the clean request
 * `response` answers.
 */
export function redirectedRequest(
  first: HttpRequest,
  current: HttpRequest,
  response: Pick<HttpResponse, 'statusCode' | 'headers'>,
): HttpRequest | undefined {
  if (!followed.has(response.statusCode)) return undefined;
  const location = headerValue(response.headers, 'location')?.trim();
  if (location === undefined || location === '') return undefined;
  const url = resolve(location, requestUrl(current));
  if (url === undefined) return undefined;
  const scheme: Scheme = url.protocol === 'https:' ? 'https' : 'http';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? defaultPort(scheme) : Number(url.port);
  const keepsBody = response.statusCode === 307 || response.statusCode === 308;
  const method = keepsBody || current.method === 'GET' || current.method === 'HEAD' ? current.method : 'GET';
  // Body headers are copied from the first request, so only while its body is still the one sent.
  const firstBody = keepsBody && current.body === first.body;
  const next = { scheme, hostname, port };
  const sameHost = sameHostAndPort(first, next);
  const headers: HeaderField[] = [];
  for (const [name, value] of first.headers) {
    const lower = name.toLowerCase();
    if (lower === 'host') headers.push([name, authority(next)]);
    else if (credentialHeaders.has(lower) && !sameHost) continue;
    else if (bodyHeaders.has(lower) && !firstBody) continue;
    else headers.push([name, value]);
  }
  return {
    method,
    scheme,
    hostname,
    port,
    target: `${url.pathname}${url.search}`,
    headers,
    body: keepsBody ? current.body : '',
  };
}

function resolve(location: string, base: string): URL | undefined {
  try {
    const url = new URL(location, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

type Place = Pick<HttpRequest, 'scheme' | 'hostname' | 'port'>;

function sameHostAndPort(a: Place, b: Place): boolean {
  if (a.hostname.toLowerCase() !== b.hostname.toLowerCase()) return false;
  return a.port === b.port || (a.port === defaultPort(a.scheme) && b.port === defaultPort(b.scheme));
}

/** `host[:port]` lower-cased, without the scheme's default port (nuclei's host-redirects key). */
function hostKey(place: Place): string {
  return authority(place).toLowerCase();
}

/** The first request's host key: from its Host header when it sets one, as nuclei compares. */
function firstHostKey(first: HttpRequest): string {
  const host = headerValue(first.headers, 'host')?.trim().toLowerCase();
  if (host === undefined || host === '') return hostKey(first);
  const defaultSuffix = `:${defaultPort(first.scheme)}`;
  return host.endsWith(defaultSuffix) ? host.slice(0, -defaultSuffix.length) : host;
}
