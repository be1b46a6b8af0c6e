import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, setHeader } from '../http/index.js';
import { chain, type Interceptor, isRaw, Refused, transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

/**
 * A secret for one host only, as a secret file with `domains: ["127.0.0.1:<port>"]` gives it: the
 * dispatch sees every request the engine sends (every hop), as built.
 */
function bearerFor(hostname: string, token: string) {
  const decided: string[] = [];
  const bearer: Interceptor = (next) => (outgoing, options) => {
    if (isRaw(outgoing)) return next(outgoing, options);
    decided.push(
      `${outgoing.hostname}${outgoing.target}${options.withoutSecrets === true ? ' without secrets' : ''}`,
    );
    if (outgoing.hostname !== hostname || options.withoutSecrets === true) return next(outgoing, options);
    return next(
      { ...outgoing, headers: setHeader(outgoing.headers, 'Authorization', `Bearer ${token}`) },
      options,
    );
  };
  return { decided, dispatch: chain(dispatch, [bearer]) };
}

beforeAll(async () => {
  server = await fixtureServer([
    // /hop/<n>/<host>/... redirects to the next host in the path, ending in /end
    {
      path: /^\/hop\//,
      respond: (r) => {
        const [, , next, ...rest] = r.path.split('/');
        const location =
          rest.length === 0
            ? `http://${next}:${server.port}/end`
            : `http://${next}:${server.port}/hop/${rest.join('/')}`;
        return { status: 302, headers: { Location: location } };
      },
    },
    { path: '/end', respond: (r) => ({ body: `end auth=${r.headers.authorization ?? 'none'}` }) },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

const redirectTemplate = (hops: readonly string[]) =>
  template(`id: redirects
info:
  name: r
  author: t
http:
  - method: GET
    path: ["{{BaseURL}}/hop/${hops.join('/')}"]
    redirects: true
    max-redirects: 10
    matchers:
      - type: word
        words: ["end"]
`);

describe('redirects and the dispatch', () => {
  it('follows redirects, evaluates the final response and reports its URL as matched-at', async () => {
    const run = await runTemplate(redirectTemplate(['127.0.0.1']), server.url, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/end`]);
  });

  it('follows nothing by default', async () => {
    const t = template(`id: no-follow
info: {name: r, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/hop/127.0.0.1"]
    matchers:
      - type: status
        status: [302]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/hop/127.0.0.1`]);
  });

  it('sends every hop through the dispatch, built from the clean request, so the secret never reaches another host', async () => {
    const auth = bearerFor('127.0.0.1', 'T0KEN');
    const before = server.requests.length;
    const run = await runTemplate(redirectTemplate(['localhost', '127.0.0.1']), server.url, {
      dispatch: auth.dispatch,
    });
    const seen = server.requests.slice(before).map((r) => `${r.host} ${r.headers.authorization ?? '-'}`);
    expect(seen).toEqual(['127.0.0.1 Bearer T0KEN', 'localhost -', '127.0.0.1 Bearer T0KEN']);
    expect(auth.decided).toHaveLength(3);
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/end`);
  });

  it('never lets a secret reach another host, whatever the chain of redirects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('localhost', '127.0.0.1'), { minLength: 1, maxLength: 4 }),
        async (hops) => {
          const before = server.requests.length;
          await runTemplate(redirectTemplate(hops), server.url, {
            dispatch: bearerFor('127.0.0.1', 'S3CRET').dispatch,
          });
          for (const request of server.requests.slice(before)) {
            if (request.host === 'localhost') expect(request.headers.authorization).toBeUndefined();
            else expect(request.headers.authorization).toBe('Bearer S3CRET');
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('reports a request the dispatch refused as an error of the run, not as a transport failure', async () => {
    const before = server.requests.length;
    const run = await runTemplate(redirectTemplate(['127.0.0.1']), server.url, {
      dispatch: () => Promise.reject(new Refused(`${server.url}/x`, 'the login of dynamic[0] failed: 401')),
    });
    expect(server.requests.length).toBe(before);
    expect(run.failures).toEqual([
      expect.objectContaining({ kind: 'refused', message: 'the login of dynamic[0] failed: 401' }),
    ]);
    expect(run.requests).toBe(0);
  });

  it('tells the dispatch that requests of blocks with skip-secret-file go without secrets', async () => {
    const t = template(`id: skip-secret
info: {name: r, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/end"]
    skip-secret-file: true
    matchers:
      - type: word
        words: ["auth=none"]
`);
    const auth = bearerFor('127.0.0.1', 'T');
    const run = await runTemplate(t, server.url, { dispatch: auth.dispatch });
    expect(run.matched).toBe(true);
    expect(auth.decided).toEqual(['127.0.0.1/end without secrets']);
  });

  it('reports the request as the dispatch sent it, and matched-at as the template built it', async () => {
    const query: Interceptor = (next) => (outgoing, options) =>
      next(isRaw(outgoing) ? outgoing : { ...outgoing, target: `${outgoing.target}?token=S3CRET` }, options);
    const t = template(`id: as-sent
info: {name: r, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/end"]
    matchers:
      - type: word
        words: ["end"]
`);
    const run = await runTemplate(t, server.url, { dispatch: chain(dispatch, [query]) });
    expect(run.events[0]?.request).toContain('GET /end?token=S3CRET HTTP/1.1');
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/end`);
  });
});
