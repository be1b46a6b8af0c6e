import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { HttpClient } from '../http/index.js';
import { type RawServer, rawServer } from '../http/testing/servers.js';
import { chain, type Interceptor, isRaw, retrying, transportDispatch } from '../send/index.js';
import { type RequestOutcome, runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
let flaky: RawServer;
let connections = 0;
let cutting: RawServer;
let cuts = 0;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    {
      path: '/echo',
      respond: (r) => ({ body: `ua=${r.headers['user-agent']} x=${r.headers['x-team'] ?? '-'}` }),
    },
    {
      path: '/away',
      respond: () => ({ status: 302, headers: { Location: `http://localhost:${server.port}/echo` } }),
    },
    { path: '/here', respond: { status: 302, headers: { Location: '/echo' } } },
    { path: '/big', respond: { body: `${'a'.repeat(64)}MARKER` } },
  ]);
  // Drops the first connection without answering, then answers.
  flaky = await rawServer((_head, socket) => {
    connections++;
    if (connections === 1) socket.destroy();
    else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
  });
  // Resets the connection inside the body as long as `cuts` says, then answers whole.
  cutting = await rawServer((_head, socket) => {
    const body = 'admin panel: restricted';
    const head = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`;
    if (cuts-- > 0) socket.write(`${head}admin panel`, () => setTimeout(() => socket.resetAndDestroy(), 20));
    else socket.end(`${head}${body}`);
  });
});

afterAll(async () => {
  await server.close();
  await flaky.close();
  await cutting.close();
  await client.close();
});

const info = 'info: {name: o, author: t}';

describe('run options', () => {
  it('sets -H headers over the template headers of path and raw requests', async () => {
    const t = template(`id: headers
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/echo"]
    headers:
      X-Team: template
      User-Agent: template-agent
  - raw:
      - |
        GET /echo HTTP/1.1
        Host: {{Hostname}}
        X-Team: raw
    matchers:
      - type: word
        words: ["x="]
`);
    const before = server.requests.length;
    await runTemplate(t, server.url, {
      dispatch,
      headers: [
        ['X-Team', 'cli'],
        ['User-Agent', 'cli-agent'],
      ],
    });
    expect(server.requests.slice(before).map((r) => [r.headers['x-team'], r.headers['user-agent']])).toEqual([
      ['cli', 'cli-agent'],
      ['cli', 'cli-agent'],
    ]);
  });

  it('sends a request that failed in transport again, as many times as asked', async () => {
    const t = template(`id: retries
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: word
        words: ["ok"]
`);
    connections = 0;
    const once = await runTemplate(t, `http://127.0.0.1:${flaky.port}`, { dispatch });
    expect(once.failures).toEqual([expect.objectContaining({ kind: 'transport' })]);
    connections = 0;
    const retried = await runTemplate(t, `http://127.0.0.1:${flaky.port}`, {
      dispatch: chain(dispatch, [retrying(1)]),
    });
    expect(retried.failures).toEqual([]);
    expect(retried.matched).toBe(true);
  });

  it('reports a body the connection cut short as a transport failure, sent again with -retries', async () => {
    const t = template(`id: cut-body
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: word
        words: ["admin panel"]
      - type: word
        words: ["restricted"]
        negative: true
    matchers-condition: and
`);
    const url = `http://127.0.0.1:${cutting.port}`;
    cuts = 1;
    const once = await runTemplate(t, url, { dispatch });
    expect(once.matched).toBe(false);
    expect(once.failures).toEqual([
      expect.objectContaining({
        kind: 'transport',
        message: `${url}/: connection lost while reading the body (read ECONNRESET): 11 of its 23 bytes arrived`,
      }),
    ]);
    cuts = 1;
    const retried = await runTemplate(t, url, {
      dispatch: chain(dispatch, [retrying(1)]),
      matcherStatus: true,
    });
    expect(retried.failures).toEqual([]);
    expect(retried.events.map((e) => e['matcher-status'])).toEqual([false]);
    expect(retried.events[0]?.response).toContain('admin panel: restricted');
  });

  it('follows a redirect to the same host only, with host-redirects, evaluating every hop newest first', async () => {
    const hostOnly = (path: string) =>
      template(`id: host-redirects
${info}
http:
  - method: GET
    path: ["{{BaseURL}}${path}"]
    host-redirects: true
    matchers:
      - type: status
        status: [200, 302]
`);
    const same = await runTemplate(hostOnly('/here'), server.url, { dispatch });
    expect(same.events.map((e) => e['matched-at'])).toEqual([`${server.url}/echo`, `${server.url}/here`]);
    const other = await runTemplate(hostOnly('/away'), server.url, { dispatch });
    expect(other.events.map((e) => e['matched-at'])).toEqual([`${server.url}/away`]);
  });

  it('sends an @once request once, not once per payload value', async () => {
    const t = template(`id: once
${info}
http:
  - raw:
      - |
        @once
        GET /echo?setup=1 HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /echo?n={{n}} HTTP/1.1
        Host: {{Hostname}}
    payloads:
      n: [1, 2, 3]
    matchers:
      - type: word
        words: ["x="]
`);
    const before = server.requests.length;
    await runTemplate(t, server.url, { dispatch });
    expect(server.requests.slice(before).map((r) => r.target)).toEqual([
      '/echo?setup=1',
      '/echo?n=1',
      '/echo?n=2',
      '/echo?n=3',
    ]);
  });

  it('reports matched-at without the query parameters a secret added', async () => {
    const querySecret: Interceptor = (next) => (outgoing, options) =>
      next(
        isRaw(outgoing) ? outgoing : { ...outgoing, target: `${outgoing.target}?api_key=S3CRET` },
        options,
      );
    const t = template(`id: query-secret
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/echo"]
    matchers:
      - type: word
        words: ["x="]
`);
    const run = await runTemplate(t, server.url, { dispatch: chain(dispatch, [querySecret]) });
    expect(server.requests.at(-1)?.query.get('api_key')).toBe('S3CRET');
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/echo`);
  });

  it('reads at most the body bytes asked for, the block max-size winning over the run option', async () => {
    const big = (maxSize: string) =>
      template(`id: body-cap
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/big"]
${maxSize}
    matchers:
      - type: word
        words: ["MARKER"]
`);
    expect((await runTemplate(big(''), server.url, { dispatch })).matched).toBe(true);
    expect((await runTemplate(big(''), server.url, { dispatch, maxBodyBytes: 32 })).matched).toBe(false);
    expect(
      (await runTemplate(big('    max-size: 1000'), server.url, { dispatch, maxBodyBytes: 32 })).matched,
    ).toBe(true);
  });

  it('marks the events of a response whose body was cut at its limit, and says the limit with the request', async () => {
    const capped = (maxSize: number, word = 'aaaa') =>
      template(`id: body-cut
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/big"]
    max-size: ${maxSize}
    matchers:
      - type: word
        words: ["${word}"]
`);
    const cuts: (number | undefined)[] = [];
    const onRequest = (outcome: RequestOutcome) => {
      if (outcome.kind === 'sent') cuts.push(outcome.truncatedAt);
    };
    const cut = await runTemplate(capped(32), server.url, { dispatch, onRequest });
    expect(cut.events.map((e) => e['response-truncated'])).toEqual([true]);
    expect(Object.keys(cut.events[0] ?? {}).indexOf('response-truncated')).toBe(
      Object.keys(cut.events[0] ?? {}).indexOf('response') + 1,
    );
    const whole = await runTemplate(capped(1000), server.url, { dispatch, onRequest });
    expect(whole.events.map((e) => e['response-truncated'])).toEqual([undefined]);
    expect(cuts).toEqual([32, undefined]);
    const failed = await runTemplate(capped(32, 'MARKER'), server.url, {
      dispatch,
      matcherStatus: true,
    });
    expect(failed.events.map((e) => [e['matcher-status'], e['response-truncated']])).toEqual([[false, true]]);
  });

  it('counts each request for progress: sent, failed or skipped', async () => {
    const t = template(`id: progress
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/echo", "http://127.0.0.1:1/refused", "{{BaseURL}}/{{missing}}"]
    matchers:
      - type: word
        words: ["x="]
`);
    const outcomes: string[] = [];
    const run = await runTemplate(t, server.url, { dispatch, onRequest: (o) => outcomes.push(o.kind) });
    expect(outcomes).toEqual(['sent', 'failed', 'skipped']);
    expect([run.requests, run.failures.length, run.skipped.length]).toEqual([1, 1, 1]);
  });
});

describe('sending overrides (nuclei flags)', () => {
  const redirecting = (policy: string) =>
    template(`id: redirecting
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/away"]
${policy}
    matchers:
      - type: status
        status: [200, 302]
`);
  const matchedAt = (events: readonly ResultEvent[]) => events.map((e) => e['matched-at']);

  it('-fr follows redirects in a template that follows none, -fhr only on the same host', async () => {
    const all = await runTemplate(redirecting(''), server.url, {
      dispatch,
      overrides: { redirects: { follow: 'all' } },
    });
    expect(matchedAt(all.events)).toEqual([`http://localhost:${server.port}/echo`, `${server.url}/away`]);
    const sameHost = await runTemplate(redirecting(''), server.url, {
      dispatch,
      overrides: { redirects: { follow: 'same-host' } },
    });
    expect(matchedAt(sameHost.events)).toEqual([`${server.url}/away`]);
  });

  it('-dr follows no redirect in a template that follows them', async () => {
    const run = await runTemplate(redirecting('    redirects: true'), server.url, {
      dispatch,
      overrides: { redirects: { follow: 'none' } },
    });
    expect(matchedAt(run.events)).toEqual([`${server.url}/away`]);
  });

  it('-at changes the payload combinations of every block', async () => {
    const t = template(`id: attack
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/echo?u={{user}}&p={{pass}}"]
    attack: pitchfork
    payloads:
      user: [a, b]
      pass: [1, 2]
    matchers:
      - type: status
        status: [200]
`);
    expect((await runTemplate(t, server.url, { dispatch })).events).toHaveLength(2);
    const bomb = await runTemplate(t, server.url, { dispatch, overrides: { attack: 'clusterbomb' } });
    expect(bomb.events).toHaveLength(4);
  });

  it('-rsr reads at most its bytes, over the block max-size', async () => {
    const t = template(`id: body-cap
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/big"]
    max-size: 1000
    matchers:
      - type: word
        words: ["MARKER"]
`);
    expect((await runTemplate(t, server.url, { dispatch, overrides: { maxBodyBytes: 32 } })).matched).toBe(
      false,
    );
  });

  it('-spm stops every block at its first match', async () => {
    const t = template(`id: spm
${info}
http:
  - method: GET
    path: ["{{BaseURL}}/echo", "{{BaseURL}}/echo?again"]
    matchers:
      - type: status
        status: [200]
`);
    expect((await runTemplate(t, server.url, { dispatch })).events).toHaveLength(2);
    const once = await runTemplate(t, server.url, { dispatch, overrides: { stopAtFirstMatch: true } });
    expect(once.events).toHaveLength(1);
  });
});
