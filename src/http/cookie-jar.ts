/**
 * The cookie jar of one template run against one target (the engine makes one per run and decides
 * whether to use it: on unless `disable-cookie`). Storage and matching are tough-cookie's RFC 6265
 * rules: domain and path matching, host-only cookies, expiry, `Secure` only over https (also on
 * localhost), public-suffix domains refused. The jar is bounded as browsers bound theirs (see
 * cookie-limits.ts): cookies longer than 4 KiB are refused, a domain and the jar hold a limited
 * number, and the jar adds no more to a `Cookie` header than its size limit allows.
 */
import { Cookie, MemoryCookieStore, CookieJar as ToughJar } from 'tough-cookie';
import { CookieBook, type CookieIdentity, cookieBytes, cookieLimits } from './cookie-limits.js';
import { type HeaderField, type HttpRequest, isHeaderName } from './message.js';
import { requestUrl } from './request-bytes.js';
import type { HttpResponse } from './response.js';

export class CookieJar {
  /** Made with the first Set-Cookie: most runs never receive one. */
  private jar: ToughJar | undefined;
  private readonly cookies = new MemoryCookieStore();
  /**
   * What the jar holds, counted. Until it holds a cookie the jar adds nothing, and neither URLs nor
   * the jar are consulted (otherwise a URL parse and a jar lookup per request).
   */
  private readonly book = new CookieBook();

  /** How many cookies the jar holds. */
  get size(): number {
    return this.book.size;
  }

  /** Stores the cookies a response sets (its `Set-Cookie` headers), scoped to the response's URL. */
  store(response: Pick<HttpResponse, 'url' | 'headers'>): void {
    let url: URL | undefined;
    for (const [name, value] of response.headers) {
      if (!isHeaderName(name, 'set-cookie')) continue;
      url ??= parseUrl(response.url);
      if (url === undefined) return;
      this.jar ??= new ToughJar(this.cookies, {
        looseMode: true,
        rejectPublicSuffixes: true,
        allowSecureOnLocal: false,
      });
      this.keep(this.jar, value, url);
    }
  }

  /**
   * The request with the jar's cookies for its URL added to its `Cookie` header. A cookie the request
   * already sets keeps its value (the request's own cookies win); the request's Cookie text is kept
   * as written and the jar's cookies are appended to the first Cookie header (or a new one at the end),
   * in RFC 6265's order (longer paths first, then older cookies first), each only while the header
   * stays within its size limit.
   */
  apply(request: HttpRequest): HttpRequest {
    if (this.book.size === 0 || this.jar === undefined) return request;
    const url = parseUrl(requestUrl(request));
    if (url === undefined) return request;
    const own = new Set(cookieNames(request));
    const existing = firstCookieHeader(request.headers);
    let length = existing === undefined ? 0 : Buffer.byteLength(existing);
    const now = Date.now();
    const added: string[] = [];
    const sent: CookieIdentity[] = [];
    for (const cookie of this.jar.getCookiesSync(url, { expire: false, sort: true })) {
      const identity = identityOf(cookie);
      if (identity === undefined) continue;
      if (expired(cookie, now)) {
        this.remove(identity);
        continue;
      }
      if (own.has(cookie.key)) continue;
      const pair = cookie.cookieString();
      const grown = length + (length === 0 ? 0 : 2) + Buffer.byteLength(pair);
      if (grown > cookieLimits.headerBytes) continue;
      length = grown;
      added.push(pair);
      sent.push(identity);
    }
    if (added.length === 0) return request;
    this.book.sent(sent);
    return { ...request, headers: withCookies(request.headers, added.join('; ')) };
  }

  /** Stores one `Set-Cookie` value within the limits. */
  private keep(jar: ToughJar, text: string, url: URL): void {
    const parsed = Cookie.parse(text, { loose: true });
    if (parsed === undefined || cookieBytes(parsed.key, parsed.value) > cookieLimits.bytesPerCookie) return;
    const stored = jar.setCookieSync(parsed, url, { ignoreError: true });
    const identity = stored === undefined ? undefined : identityOf(stored);
    if (stored === undefined || identity === undefined) return;
    const known = this.book.holds(identity);
    if (expired(stored, Date.now())) {
      // A cookie set to expire at once deletes the one it replaces.
      this.cookies.removeCookie(identity.domain, identity.path, identity.name, ignore);
      this.book.forget(identity);
      return;
    }
    if (known) return;
    const leaving = this.book.admit(identity);
    if (leaving !== undefined) this.remove(leaving);
  }

  private remove(cookie: CookieIdentity): void {
    this.cookies.removeCookie(cookie.domain, cookie.path, cookie.name, ignore);
    this.book.forget(cookie);
  }
}

function ignore(): void {}

function identityOf(cookie: Cookie): CookieIdentity | undefined {
  const { domain, path, key } = cookie;
  if (domain === null || path === null) return undefined;
  return { domain, path, name: key };
}

function expired(cookie: Cookie, now: number): boolean {
  const at = cookie.expiryTime();
  return at !== undefined && at <= now;
}

/** The text of the request's first Cookie header, as the jar's cookies are appended to it. */
function firstCookieHeader(headers: readonly HeaderField[]): string | undefined {
  const field = headers.find(([name]) => isHeaderName(name, 'cookie'));
  return field === undefined ? undefined : field[1].trim().replace(/;\s*$/, '');
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
