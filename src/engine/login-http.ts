import {
  CookieJar,
  type HttpRequest,
  type HttpResponse,
  requestUrl,
  type Scheme,
  sendFollowingRedirects,
} from '../http/index.js';
import { type Dispatch, type DispatchOptions, Refused } from '../send/index.js';

/**
 * The requests of a login that keyhole writes itself (a form, a token request): one cookie jar for
 * the whole login, redirects followed only where `refuse` allows (where the credentials may go),
 * each request through the login's dispatch (static secrets, resends, pacing, dumps as any other).
 */
export class LoginBrowser {
  readonly jar = new CookieJar();

  constructor(
    private readonly dispatch: Dispatch,
    private readonly refuse: (to: HttpRequest) => string | undefined,
    private readonly options: DispatchOptions,
  ) {}

  /** Sends a request and follows its redirects; the last response. Refused: outside where it may go. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const hops = await sendFollowingRedirects(request, {
      policy: 'any',
      send: async (clean) => {
        const refusal = this.refuse(clean);
        if (refusal !== undefined) throw new Refused(requestUrl(clean), refusal);
        const sent = await this.dispatch(this.jar.apply(clean), this.options);
        this.jar.store(sent.response);
        return sent.response;
      },
    });
    const last = hops.at(-1);
    if (last === undefined) throw new Error('no response');
    return last.response;
  }

  /** The cookies the jar would send to `url`, as name → value. */
  cookiesFor(url: string): Map<string, string> {
    const applied = this.jar.apply(requestTo('GET', url));
    const header = applied.headers.find(([name]) => name.toLowerCase() === 'cookie')?.[1] ?? '';
    const cookies = new Map<string, string>();
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
    }
    return cookies;
  }
}

/** A request to an absolute http(s) URL. */
export function requestTo(
  method: string,
  url: string,
  headers: readonly (readonly [string, string])[] = [],
  body: string = '',
): HttpRequest {
  const parsed = new URL(url);
  const scheme = parsed.protocol.slice(0, -1) as Scheme;
  return {
    method,
    scheme,
    hostname: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? (scheme === 'https' ? 443 : 80) : Number(parsed.port),
    target: `${parsed.pathname}${parsed.search}`,
    headers: body === '' && method === 'GET' ? headers : [...headers],
    body,
  };
}

export function bodyText(response: HttpResponse): string {
  return response.body.toString('utf8');
}
