import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpRequest, setHeader } from '../http/index.js';
import { type RequestAuthorizer, runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });

/** A secret for 127.0.0.1 only, as a secret file with `domains: ["127.0.0.1:<port>"]` would give. */
function bearerFor(hostname: string, token: () => string): RequestAuthorizer & { decided: string[] } {
  const decided: string[] = [];
  return {
    decided,
    async authorize(request: HttpRequest) {
      decided.push(`${request.hostname}${request.target}`);
      if (request.hostname !== hostname) return { kind: 'send', request };
      return {
        kind: 'send',
        request: { ...request, headers: setHeader(request.headers, 'Authorization', `Bearer ${token()}`) },
      };
    },
    async authorizeRaw(text) {
      return { kind: 'send', request: text };
    },
  };
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
    {
      path: '/data',
      when: (r) => r.headers.authorization === 'Bearer fresh',
      respond: { body: 'secret data' },
    },
    { path: '/data', respond: { status: 401, body: 'session expired' } },
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

describe('redirects and the authorizer', () => {
  it('follows redirects, evaluates the final response and reports its URL as matched-at', async () => {
    const run = await runTemplate(redirectTemplate(['127.0.0.1']), server.url, { client });
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
    const run = await runTemplate(t, server.url, { client });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/hop/127.0.0.1`]);
  });

  it('asks the authorizer on every hop and never sends the secret to another host', async () => {
    const auth = bearerFor('127.0.0.1', () => 'T0KEN');
    const before = server.requests.length;
    const run = await runTemplate(redirectTemplate(['localhost', '127.0.0.1']), server.url, {
      client,
      authorizer: auth,
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
            client,
            authorizer: bearerFor('127.0.0.1', () => 'S3CRET'),
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

  it('does not send a request the authorizer refuses, and reports it as an error', async () => {
    const before = server.requests.length;
    const run = await runTemplate(redirectTemplate(['127.0.0.1']), server.url, {
      client,
      authorizer: {
        authorize: async () => ({ kind: 'refuse', reason: 'the login of dynamic[0] failed: 401' }),
        authorizeRaw: async () => ({ kind: 'refuse', reason: 'no' }),
      },
    });
    expect(server.requests.length).toBe(before);
    expect(run.failures).toEqual([
      expect.objectContaining({ kind: 'refused', message: 'the login of dynamic[0] failed: 401' }),
    ]);
    expect(run.requests).toBe(0);
  });

  it('skips the authorizer for blocks with skip-secret-file', async () => {
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
    const auth = bearerFor('127.0.0.1', () => 'T');
    const run = await runTemplate(t, server.url, { client, authorizer: auth });
    expect(run.matched).toBe(true);
    expect(auth.decided).toEqual([]);
  });

  it('sends a request once more, authorized afresh, when the authorizer asks after the response', async () => {
    let token = 'stale';
    let asked = 0;
    const base = bearerFor('127.0.0.1', () => token);
    const authorizer: RequestAuthorizer = {
      ...base,
      afterResponse: ({ response }) => {
        asked++;
        if (response.statusCode !== 401) return 'keep';
        token = 'fresh'; // the scanner logs in again here
        return 'retry';
      },
    };
    const t = template(`id: reauth
info: {name: r, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/data"]
    matchers:
      - type: word
        words: ["secret data"]
`);
    const before = server.requests.length;
    const run = await runTemplate(t, server.url, { client, authorizer });
    expect(server.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      'Bearer stale',
      'Bearer fresh',
    ]);
    expect(asked).toBe(1);
    expect(run.matched).toBe(true);
    expect(run.events[0]?.request).toContain('Bearer fresh');
  });

  it('retries only once even when the response after the retry still looks logged out', async () => {
    const authorizer: RequestAuthorizer = {
      ...bearerFor('127.0.0.1', () => 'never-valid'),
      afterResponse: () => 'retry',
    };
    const t = template(`id: reauth-once
info: {name: r, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/data"]
    matchers:
      - type: status
        status: [200]
`);
    const before = server.requests.length;
    const run = await runTemplate(t, server.url, { client, authorizer });
    expect(server.requests.length - before).toBe(2);
    expect(run.lastStatus).toBe(401);
  });
});
