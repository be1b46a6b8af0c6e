import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { type RawServer, rawServer } from '../http/testing/servers.js';
import { applyCredentialToRaw } from '../secretfile/index.js';
import { chain, type Interceptor, isRaw, retrying, transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
let raw: RawServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    { path: '/slow', respond: { delayMs: 3000, body: 'late' } },
    { path: '/hold', respond: () => new Promise(() => {}) },
    {
      path: /^\/around\//,
      respond: (r) => ({ status: 302, headers: { Location: `${r.path}x` }, delayMs: 60 }),
    },
    { path: '/api/user', respond: (r) => ({ body: `user for ${r.headers.authorization ?? 'nobody'}` }) },
  ]);
  raw = await rawServer((_head, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 7\r\nX-Cache: HIT\r\n\r\npoisond');
  });
});

afterAll(async () => {
  await server.close();
  await raw.close();
  await client.close();
});

describe('unsafe requests', () => {
  const unsafe = template(`id: unsafe
info: {name: u, author: t}
http:
  - raw:
      - |+
        GET /a/../b?x=1 HTTP/1.1
        Host: {{Hostname}}
        X-Dup: one
        X-Dup: two
        X-Ctl: \u0001\u0002

    unsafe: true
    matchers:
      - type: word
        part: header
        words: ["X-Cache: HIT"]
`);

  it('sends the rendered bytes exactly as written and reports no curl command', async () => {
    const run = await runTemplate(unsafe, `http://127.0.0.1:${raw.port}`, { dispatch });
    const bytes = Buffer.concat(raw.received.at(-1) ?? []).toString('latin1');
    expect(bytes).toBe(
      `GET /a/../b?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${raw.port}\r\nX-Dup: one\r\nX-Dup: two\r\nX-Ctl: \u0001\u0002\r\n\r\n`,
    );
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['curl-command']).toBeUndefined();
    expect(run.events[0]?.request).toContain('X-Dup: two');
  });

  it('lets the dispatch edit the raw text and -H set a header, keeping every other byte', async () => {
    const cookie: Interceptor = (next) => (outgoing, options) => {
      if (!isRaw(outgoing) || typeof outgoing.bytes !== 'string') return next(outgoing, options);
      const edited = applyCredentialToRaw(outgoing.bytes, {
        type: 'cookie',
        cookies: [{ name: 'sid', value: '1' }],
      });
      return next({ ...outgoing, bytes: edited ?? outgoing.bytes }, options);
    };
    await runTemplate(unsafe, `http://127.0.0.1:${raw.port}`, {
      dispatch: chain(dispatch, [cookie]),
      headers: [['X-Scan', 'yes']],
    });
    const bytes = Buffer.concat(raw.received.at(-1) ?? []).toString('latin1');
    expect(bytes).toBe(
      `GET /a/../b?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${raw.port}\r\nX-Dup: one\r\nX-Dup: two\r\nX-Ctl: \u0001\u0002\r\nX-Scan: yes\r\nCookie: sid=1\r\n\r\n`,
    );
  });
});

describe('timeouts and cancellation', () => {
  it('fails a request that takes longer than its @timeout', async () => {
    const t = template(`id: annotated-timeout
info: {name: u, author: t}
http:
  - raw:
      - |
        @timeout: 100ms
        GET /slow HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["late"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.matched).toBe(false);
    expect(run.failures).toEqual([expect.objectContaining({ kind: 'transport' })]);
    expect(run.failures[0]?.message).toContain('timed out');
  });

  it('fails a request that takes longer than the run timeout', async () => {
    const t = template(`id: run-timeout
info: {name: u, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/slow"]
    matchers:
      - type: word
        words: ["late"]
`);
    const run = await runTemplate(t, server.url, { dispatch, timeoutMs: 100 });
    expect(run.failures[0]?.message).toContain('timed out');
  });

  it('bounds a redirect chain by (1 + retries) × the timeout, all hops together', async () => {
    const t = template(`id: endless-redirects
info: {name: u, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/around/"]
    redirects: true
    max-redirects: 100000
    matchers:
      - type: status
        status: [302]
`);
    for (const retries of [0, 1]) {
      const before = server.requests.length;
      const run = await runTemplate(t, server.url, {
        dispatch: chain(dispatch, [retrying(retries)]),
        exchangeDeadlines: 1 + retries,
        timeoutMs: 400,
      });
      const hops = server.requests.length - before;
      expect(run.matched).toBe(false);
      expect(run.failures).toEqual([expect.objectContaining({ kind: 'transport' })]);
      expect(run.failures[0]?.message).toContain(
        `the request, its redirects and retries took their ${400 * (1 + retries)} ms`,
      );
      expect(hops).toBeLessThan(((1 + retries) * 400) / 60 + 2);
    }
  });

  it('stops when its signal aborts, reporting no failure', async () => {
    const t = template(`id: aborted
info: {name: u, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/hold", "{{BaseURL}}/api/user"]
    matchers:
      - type: word
        words: ["x"]
`);
    const controller = new AbortController();
    const before = server.requests.length;
    const running = runTemplate(t, server.url, { dispatch, signal: controller.signal });
    while (server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const run = await running;
    expect(run.aborted).toBe(true);
    expect(run.failures).toEqual([]);
    expect(server.requests.length).toBe(before + 1);
  });
});

describe('self-contained templates', () => {
  it('runs without a target, sending to the URLs the template names', async () => {
    const t = template(`id: token-spray
info: {name: u, author: t}
self-contained: true
http:
  - method: GET
    path: ["http://127.0.0.1:${server.port}/api/user"]
    headers:
      Authorization: "token {{token}}"
    matchers:
      - type: word
        words: ["user for token abc"]
`);
    const run = await runTemplate(t, undefined, { dispatch, variables: { token: 'abc' } });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`http://127.0.0.1:${server.port}/api/user`]);
    expect(run.events[0]?.host).toBeUndefined();
  });

  it('runs a raw self-contained request at the URL of its request line', async () => {
    const t = template(`id: raw-self-contained
info: {name: u, author: t}
self-contained: true
http:
  - raw:
      - |
        GET http://127.0.0.1:${server.port}/api/user HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["user for nobody"]
`);
    const run = await runTemplate(t, undefined, { dispatch });
    expect(run.matched).toBe(true);
    expect(server.requests.at(-1)?.headers.host).toBe(`127.0.0.1:${server.port}`);
  });
});
