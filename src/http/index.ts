/**
 * HTTP for the scanner: the request and response model, the client every request goes through
 * (requests written as their bytes, keep-alive connections per origin, a connection of its own for
 * `unsafe` requests and unusual framing, one lenient response reader, one deadline per exchange,
 * capped and decoded bodies), the cookie jar of a template run, redirect following that
 * decides secrets again on every hop, the `request`/`response`/`curl-command` texts of findings, and
 * the rate and concurrency bounds of a scan.
 */

export { AbortWatch } from './aborts.js';
export { SendBudget } from './budget.js';
export { HttpClient, type RawHttpRequest, type SendOptions } from './client.js';
export {
  type CookiePair,
  cookieNameProblem,
  cookieValueProblem,
  mergeCookieHeader,
  parseRawCookie,
} from './cookie.js';
export { CookieJar } from './cookie-jar.js';
export { curlCommand } from './curl.js';
export { dumpRawRequest, dumpRequest, dumpResponse } from './dump.js';
export { TransportError } from './errors.js';
export { headerNameProblem, headerValueProblem } from './field.js';
export { RateLimiter } from './limit.js';
export {
  defaultPort,
  type HeaderField,
  type HeaderList,
  type HttpRequest,
  headerValue,
  headerValues,
  isHeaderName,
  type Scheme,
  setHeader,
} from './message.js';
export { type ProxyServer, parseProxy, proxyAnswers, TunnelSocket } from './proxy.js';
export { encodeQueryComponent, type QueryParam, setQueryParams } from './query.js';
export { RaceGate } from './race-gate.js';
export { RawRequestHead } from './raw.js';
export { type RedirectPolicy, sendFollowingRedirects } from './redirect.js';
export { authority, requestUrl } from './request-bytes.js';
export type { HttpResponse } from './response.js';
