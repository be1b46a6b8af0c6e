/**
 * The cookie jar of one template run against one target (the engine makes one per run and decides
 * whether to use it: on unless `disable-cookie`). Storage and matching are tough-cookie's RFC 6265
 * rules: domain and path matching, host-only cookies, expiry, `Secure` only over https (also on
 * localhost), public-suffix domains refused.
 */
import { CookieJar as ToughJar } from 'tough-cookie';
import { type HeaderField, type HttpRequest, isHeaderName } from './message.js';
import { requestUrl } from './request-bytes.js';
import type { HttpResponse } from './response.js';

export class CookieJar {
  /** Made with the first Set-Cookie: most runs never receive one. */
  private jar: ToughJar | undefined;
  /**
   * Whether a cookie was ever stored. Until then the jar adds nothing, and neither URLs nor the jar
   * are consulted (otherwise a URL parse and a jar lookup per request).
   */
  private holdsCookies = false;

  /** Stores the cookies a response sets (its `Set-Cookie` headers), scoped to the response's URL. */
  store(response: Pick<HttpResponse, 'url' | 'headers'>): void {
    let url: URL | undefined;
    for (const [name, value] of response.headers) {
      if (!isHeaderName(name, 'set-cookie')) continue;
      url ??= parseUrl(response.url);
      if (url === undefined) return;
      this.jar ??= new ToughJar(undefined, {
        looseMode: true,
        rejectPublicSuffixes: true,
        allowSecureOnLocal: false,
      });
      if (this.jar.setCookieSync(value, url, { ignoreError: true }) !== undefined) this.holdsCookies = true;
    }
  }

  /**
   * The request with the jar's cookies for its URL added to its `Cookie` header. A cookie the request
   * already sets keeps its value (the request's own cookies win); the request's Cookie text is kept
   * as written and the jar's cookies are appended to the first Cookie header (or a new one at the end).
   */
  apply(request: HttpRequest): HttpRequest {
    if (!this.holdsCookies || this.jar === undefined) return request;
    const url = parseUrl(requestUrl(request));
    if (url === undefined) return request;
    const own = new Set(cookieNames(request));
    const added = this.jar
      .getCookiesSync(url)
      .filter((cookie) => !own.has(cookie.key))
      .map((cookie) => cookie.cookieString());
    if (added.length === 0) return request;
    return { ...request, headers: withCookies(request.headers, added.join('; ')) };
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Names of the cookies a request's Cookie headers set. */
function cookieNames(request: HttpRequest): string[] {
  return request.headers
    .filter(([name]) => isHeaderName(name, 'cookie'))
    .flatMap(([, value]) => value.split(';'))
    .map((pair) => (pair.includes('=') ? pair.slice(0, pair.indexOf('=')) : '').trim())
    .filter((name) => name !== '');
}

function withCookies(headers: readonly HeaderField[], added: string): HeaderField[] {
  const at = headers.findIndex(([name]) => isHeaderName(name, 'cookie'));
  if (at === -1) return [...headers, ['Cookie', added]];
  return headers.map((field, index) => {
    if (index !== at) return field;
    const existing = field[1].trim().replace(/;\s*$/, '');
    return [field[0], existing === '' ? added : `${existing}; ${added}`];
  });
}
