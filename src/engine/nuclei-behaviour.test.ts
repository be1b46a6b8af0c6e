/**
 * Behaviours in which keyhole sends and evaluates what nuclei sends and evaluates, against a real
 * server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { rawServer } from '../http/testing/servers.js';
import { transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    { path: /.*/, respond: (r) => ({ body: `length=${r.headers['content-length'] ?? ''} body=${r.body}` }) },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

const info = `
info:
  name: test
  author: tester
  severity: info
`;

describe('a path request body', () => {
  it('goes out with its real length when the block headers say Content-Length: 1', async () => {
    const t = template(`id: content-length${info}
http:
  - method: POST
    path: ["{{BaseURL}}/login"]
    headers:
      Content-Length: "1"
    body: username=test&password=nuclei
    matchers:
      - type: word
        words: ["body=username=test&password=nuclei"]
`);
    const result = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.at(-1)?.headers['content-length']).toBe('29');
    expect(result.events).toHaveLength(1);
  });
});

describe('a path with an invalid percent escape', () => {
  it('reaches the server with its % encoded as %25 from a path request', async () => {
    const t = template(`id: invalid-escape${info}
http:
  - method: GET
    path: ["{{BaseURL}}/xyz/%u2s/%invalid", "{{BaseURL}}/some%0A/%0D"]
`);
    await runTemplate(t, server.url, { dispatch });
    expect(server.requests.slice(-2).map((r) => r.target)).toEqual([
      '/xyz/%25u2s/%25invalid',
      '/some%0A/%0D',
    ]);
  });
});

describe('a self-contained raw request with a relative request line', () => {
  it('goes to http:// and its Host header', async () => {
    const t = template(`id: relative-self-contained${info}
self-contained: true
http:
  - raw:
      - |
        GET /here?x=1 HTTP/1.1
        Host: 127.0.0.1:${server.port}
    matchers:
      - type: word
        words: ["length="]
`);
    const run = await runTemplate(t, undefined, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/here?x=1`]);
    expect(server.requests.at(-1)?.target).toBe('/here?x=1');
  });

  it('without a Host header is refused with what to write', async () => {
    const t = template(`id: relative-no-host${info}
self-contained: true
http:
  - raw:
      - |
        GET /here HTTP/1.1
        Accept: */*
`);
    const run = await runTemplate(t, undefined, { dispatch });
    expect(run.failures.map((f) => f.message)).toEqual([
      'a self-contained raw request needs an absolute URL in its request line, or a relative one and a Host header, got "/here"',
    ]);
  });
});

describe('stop-at-first-match', () => {
  const block = (operators: string) => `id: stop-first${info}
http:
  - method: GET
    path: ["{{BaseURL}}/a", "{{BaseURL}}/b"]
    stop-at-first-match: true
${operators}`;

  it('goes on after a request that only extracted', async () => {
    const t = template(
      block(`    extractors:
      - type: regex
        regex: ["length=[0-9]*"]
`),
    );
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/a`, `${server.url}/b`]);
  });

  it('stops after a request whose matcher matched', async () => {
    const t = template(
      block(`    matchers:
      - type: word
        words: ["length="]
`),
    );
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/a`]);
  });
});

describe('-ms after a request that failed in transport', () => {
  it('writes a matcher-status false event whose error says why', async () => {
    const closed = await fixtureServer([]);
    await closed.close();
    const t = template(`id: ms-transport${info}
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: word
        words: ["never"]
`);
    const run = await runTemplate(t, closed.url, { dispatch, matcherStatus: true });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]).toMatchObject({ 'matcher-status': false, host: '127.0.0.1' });
    expect(run.events[0]?.error).toMatch(/could not connect: .*ECONNREFUSED/);
  });
});

describe('the values nuclei adds to a response', () => {
  it('include ip, the address the response came from', async () => {
    const t = template(`id: ip-value${info}
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: dsl
        dsl: ["ip == '127.0.0.1'"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events).toHaveLength(1);
  });
});

describe('a response whose server closed the connection inside its body', () => {
  it('is matched on the bytes that came, and its finding says the response was cut', async () => {
    const cutting = await rawServer((_head, socket) =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 50000\r\n\r\nthis is a test'),
    );
    const t = template(`id: cut-body${info}
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: dsl
        dsl: ["content_length == 50000 && body == 'this is a test'"]
`);
    const run = await runTemplate(t, `http://127.0.0.1:${cutting.port}`, { dispatch });
    await cutting.close();
    expect(run.failures).toEqual([]);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['response-truncated']).toBe(true);
  });
});

describe('a raw request body', () => {
  it('goes out with its real length when the block headers say Content-Length: 1', async () => {
    const t = template(`id: raw-content-length${info}
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        username=test&password=nuclei
    headers:
      Content-Length: "1"
    matchers:
      - type: word
        words: ["body=username=test&password=nuclei"]
`);
    const result = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.at(-1)?.headers['content-length']).toBe('29');
    expect(result.events).toHaveLength(1);
  });
});
