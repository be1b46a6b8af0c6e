import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CookieJar } from './cookie-jar.js';
import { defaultPort, type HttpRequest, headerValue, setHeader } from './message.js';
import { type FollowOptions, redirectedRequest, sendFollowingRedirects } from './redirect.js';
import { authority } from './request-bytes.js';
import type { HttpResponse } from './response.js';
import { closedAfterEach } from './testing/cleanups.js';
import { type CountingServer, get, httpServer } from './testing/servers.js';

const { defer, client: httpClient } = closedAfterEach();

async function server(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<CountingServer> {
  const made = await httpServer(handler);
  defer(() => made.close());
  return made;
}

function redirect(response: ServerResponse, status: number, location: string): void {
  response.statusCode = status;
  response.setHeader('Location', location);
  response.end(`to ${location}`);
}

/** What a caller's `send` does to each clean hop before it goes out: a secret, the jar's cookies. */
interface OnTheWay {
  readonly decorate?: (request: HttpRequest, hop: number) => HttpRequest;
  readonly jar?: CookieJar;
  /** Collects each hop as it went out. */
  readonly sent?: HttpRequest[];
}

function follow(request: HttpRequest, options: Partial<Omit<FollowOptions, 'send'>> & OnTheWay = {}) {
  const http = httpClient();
  const { decorate, jar, sent, ...following } = options;
  return sendFollowingRedirects(request, {
    policy: 'any',
    ...following,
    send: (clean, hop) => {
      const withCookies = jar?.apply(clean) ?? clean;
      const outgoing = decorate?.(withCookies, hop) ?? withCookies;
      sent?.push(outgoing);
      return http.send(outgoing).then((response) => {
        jar?.store(response);
        return response;
      });
    },
  });
}

const summary = (hops: { request: HttpRequest; response: HttpResponse }[]) =>
  hops.map(
    ({ request, response }) =>
      `${request.method} ${authority(request)}${request.target} ${response.statusCode}`,
  );

describe('sendFollowingRedirects', () => {
  it('resolves relative and absolute Locations and returns every hop', async () => {
    const other = await server((_request, response) => response.end('final'));
    const first = await server((request, response) => {
      if (request.url === '/start') redirect(response, 302, 'next?x=1');
      else redirect(response, 301, `http://127.0.0.1:${other.port}/end`);
    });
    const hops = await follow(get(first.port, '/start'));
    expect(summary(hops)).toEqual([
      `GET 127.0.0.1:${first.port}/start 302`,
      `GET 127.0.0.1:${first.port}/next?x=1 301`,
      `GET 127.0.0.1:${other.port}/end 200`,
    ]);
    expect(hops.map((hop) => hop.response.body.toString())).toEqual([
      'to next?x=1',
      `to http://127.0.0.1:${other.port}/end`,
      'final',
    ]);
    expect(hops[2]?.response.url).toBe(`http://127.0.0.1:${other.port}/end`);
  });

  it('stops a redirect loop after max-redirects, and after 10 by default', async () => {
    const loop = await server((_request, response) => redirect(response, 302, '/loop'));
    expect(await follow(get(loop.port, '/loop'), { maxRedirects: 3 })).toHaveLength(4);
    expect(await follow(get(loop.port, '/loop'))).toHaveLength(11);
    expect(await follow(get(loop.port, '/loop'), { maxRedirects: 0 })).toHaveLength(11);
  });

  it('follows at most 20 redirects, however many max-redirects allows', async () => {
    const loop = await server((_request, response) => redirect(response, 302, '/loop'));
    expect(await follow(get(loop.port, '/loop'), { maxRedirects: 100_000 })).toHaveLength(21);
  });

  it('follows nothing under the none policy', async () => {
    const site = await server((_request, response) => redirect(response, 302, '/elsewhere'));
    expect(summary(await follow(get(site.port, '/'), { policy: 'none' }))).toEqual([
      `GET 127.0.0.1:${site.port}/ 302`,
    ]);
  });

  it('follows only redirects to the first host under host-redirects', async () => {
    const other = await server((_request, response) => response.end('other'));
    const site = await server((request, response) => {
      if (request.url === '/') redirect(response, 302, '/same');
      else redirect(response, 302, `http://127.0.0.1:${other.port}/`);
    });
    const hops = await follow(get(site.port, '/'), { policy: 'same-host' });
    expect(summary(hops)).toEqual([`GET 127.0.0.1:${site.port}/ 302`, `GET 127.0.0.1:${site.port}/same 302`]);
    expect(other.requests).toHaveLength(0);
  });

  it('turns a POST into a GET without body on 302 and 303, and keeps both on 307', async () => {
    const seen: string[] = [];
    const site = await server((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} [${body}] ${request.headers['content-type'] ?? '-'}`);
        if (request.url === '/form') redirect(response, 303, '/after-303');
        else if (request.url === '/after-303') redirect(response, 307, '/after-307');
        else if (request.url === '/api') redirect(response, 307, '/api-moved');
        else response.end('done');
      });
    });
    const post = (target: string): HttpRequest => ({
      ...get(site.port, target, [['Content-Type', 'application/x-www-form-urlencoded']]),
      method: 'POST',
      body: 'user=admin',
    });
    await follow(post('/form'));
    await follow(post('/api'));
    expect(seen).toEqual([
      'POST /form [user=admin] application/x-www-form-urlencoded',
      'GET /after-303 [] -',
      'GET /after-307 [] -',
      'POST /api [user=admin] application/x-www-form-urlencoded',
      'POST /api-moved [user=admin] application/x-www-form-urlencoded',
    ]);
  });

  it('ends the chain on a 3xx without Location or with a Location it cannot follow', async () => {
    const site = await server((request, response) => {
      if (request.url === '/none') {
        response.statusCode = 302;
        response.end();
      } else redirect(response, 302, 'javascript:alert(1)');
    });
    expect(await follow(get(site.port, '/none'))).toHaveLength(1);
    expect(await follow(get(site.port, '/js'))).toHaveLength(1);
  });

  it('hands send every hop derived from the clean request, with the previous host credentials gone', async () => {
    // Two "hosts" (ports): the secret applies to host A only. The chain goes A → B → A.
    const authorizations: string[] = [];
    const record = (name: string, request: IncomingMessage) =>
      authorizations.push(
        `${name}: ${request.headers.authorization ?? '-'} cookie=${request.headers.cookie ?? '-'}`,
      );
    let hostA = 0;
    const b = await server((request, response) => {
      record('B', request);
      redirect(response, 302, `http://127.0.0.1:${hostA}/back`);
    });
    const a = await server((request, response) => {
      record('A', request);
      if (request.url === '/start') redirect(response, 302, `http://127.0.0.1:${b.port}/away`);
      else response.end('home');
    });
    hostA = a.port;
    const contexts: string[] = [];
    const secretFor = (request: HttpRequest) => (request.port === a.port ? 'Bearer secret-of-A' : undefined);
    const decorate = (request: HttpRequest, hop: number) => {
      contexts.push(
        `${hop} ${authority(request)}${request.target} auth=${headerValue(request.headers, 'authorization') ?? '-'}`,
      );
      const secret = secretFor(request);
      return secret === undefined
        ? request
        : { ...request, headers: setHeader(request.headers, 'Authorization', secret) };
    };
    const start = get(a.port, '/start', [['Cookie', 'template=1']]);
    const hops = await follow(start, { decorate });
    expect(hops).toHaveLength(3);
    expect(contexts).toEqual([
      `0 127.0.0.1:${a.port}/start auth=-`,
      `1 127.0.0.1:${b.port}/away auth=-`,
      `2 127.0.0.1:${a.port}/back auth=-`,
    ]);
    expect(authorizations).toEqual([
      'A: Bearer secret-of-A cookie=template=1',
      'B: - cookie=-',
      'A: Bearer secret-of-A cookie=template=1',
    ]);
  });

  it('lets send store cookies from every hop and send them on the next', async () => {
    const site = await server((request, response) => {
      if (request.url === '/login') {
        response.setHeader('Set-Cookie', 'sid=fresh; Path=/');
        redirect(response, 302, '/dashboard');
      } else response.end(`cookie ${request.headers.cookie ?? '-'}`);
    });
    const jar = new CookieJar();
    const sent: HttpRequest[] = [];
    const hops = await follow({ ...get(site.port, '/login'), method: 'POST', body: 'u=1' }, { jar, sent });
    expect(hops.at(-1)?.response.body.toString()).toBe('cookie sid=fresh');
    expect(headerValue(sent.at(-1)?.headers ?? [], 'cookie')).toBe('sid=fresh');
    // The clean request of the hop has none: the next hop is never derived from what was sent.
    expect(headerValue(hops.at(-1)?.request.headers ?? [], 'cookie')).toBeUndefined();
  });
});

describe('redirectedRequest', () => {
  const first: HttpRequest = {
    method: 'PUT',
    scheme: 'http',
    hostname: 'app.test',
    port: 80,
    target: '/a/b',
    headers: [
      ['Host', 'app.test'],
      ['Authorization', 'Basic eA=='],
      ['Cookie', 'a=1'],
      ['Content-Type', 'text/plain'],
      ['X-Keep', 'yes'],
    ],
    body: 'data',
  };
  const response = (statusCode: number, location?: string) => ({
    statusCode,
    headers: location === undefined ? [] : ([['Location', location]] as const),
  });

  it('keeps template credentials to the same host, including an upgrade to https', () => {
    const next = redirectedRequest(first, first, response(308, 'https://APP.test/c'));
    expect(next).toMatchObject({
      method: 'PUT',
      scheme: 'https',
      hostname: 'app.test',
      port: 443,
      target: '/c',
      body: 'data',
    });
    expect(next?.headers).toEqual(first.headers);
  });

  it('drops template credentials on a redirect to another host and updates Host', () => {
    const next = redirectedRequest(first, first, response(302, '//other.test:8080/x?y=1#frag'));
    expect(next).toMatchObject({
      method: 'GET',
      hostname: 'other.test',
      port: 8080,
      target: '/x?y=1',
      body: '',
    });
    expect(next?.headers).toEqual([
      ['Host', 'other.test:8080'],
      ['X-Keep', 'yes'],
    ]);
  });

  it('resolves dot segments of a relative Location against the current URL, as Go does', () => {
    expect(redirectedRequest(first, first, response(301, '../c/./d'))?.target).toBe('/c/d');
  });

  it('does not follow statuses other than 301, 302, 303, 307 and 308', () => {
    for (const status of [200, 300, 304, 305, 306, 404]) {
      expect(redirectedRequest(first, first, response(status, '/x'))).toBeUndefined();
    }
  });

  it('never carries a credential header to a host other than the first', () => {
    const location = fc
      .tuple(
        fc.constantFrom('http://', 'https://', '//', ''),
        fc.constantFrom(
          'app.test',
          'APP.test',
          'other.test',
          'app.test.evil',
          'sub.app.test',
          '127.0.0.1',
          '[::1]',
        ),
        fc.constantFrom('', ':80', ':443', ':8080'),
        fc.stringMatching(/^[a-z0-9/._?=#-]{0,12}$/),
      )
      .map(([scheme, host, port, path]) => (scheme === '' ? path : `${scheme}${host}${port}/${path}`));
    fc.assert(
      fc.property(fc.constantFrom(301, 302, 303, 307, 308), location, (status, where) => {
        const next = redirectedRequest(first, first, response(status, where));
        if (next === undefined) return;
        // Same host name, and the same port (80) or the default port of an upgrade to https.
        const sameHost =
          next.hostname === 'app.test' && (next.port === 80 || next.port === defaultPort(next.scheme));
        const credentials = next.headers.filter(([name]) => /^(authorization|cookie)$/i.test(name));
        expect(credentials.length > 0).toBe(sameHost);
      }),
    );
  });
});

describe('sendFollowingRedirects and secrets, as a property', () => {
  it('never lets a header added by send reach the next hop request', async () => {
    const hosts = ['a.test', 'b.test', 'c.test'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...hosts), fc.constantFrom(301, 302, 303, 307, 308)), {
          maxLength: 8,
        }),
        async (chain) => {
          let step = 0;
          // A chain of redirects between hosts, served from memory: this property is about what the
          // follower hands to send, whatever the servers answer.
          const seen: HttpRequest[] = [];
          const sent: HttpRequest[] = [];
          const send = async (request: HttpRequest): Promise<HttpResponse> => {
            seen.push(request);
            sent.push({
              ...request,
              headers: setHeader(request.headers, 'X-Secret', `for-${request.hostname}`),
            });
            const next = chain[step++];
            return {
              httpVersion: 'HTTP/1.1',
              statusCode: next === undefined ? 200 : next[1],
              reason: '',
              headers: next === undefined ? [] : [['Location', `http://${next[0]}/p${step}`]],
              rawHead: '',
              rawHeadBytes: Buffer.alloc(0),
              body: Buffer.alloc(0),
              truncatedAt: undefined,
              durationMs: 0,
              remoteAddress: undefined,
              url: `http://${request.hostname}${request.target}`,
            };
          };
          const hops = await sendFollowingRedirects(
            { ...get(80), hostname: 'a.test' },
            { send, policy: 'any' },
          );
          expect(hops).toHaveLength(chain.length + 1);
          expect(sent).toHaveLength(chain.length + 1);
          for (const request of seen) expect(headerValue(request.headers, 'x-secret')).toBeUndefined();
        },
      ),
    );
  });
});
