import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    {
      path: '/echo',
      respond: (r) => ({ body: `path=${r.target} body=${r.body} x=${r.headers['x-probe'] ?? ''}` }),
    },
    {
      method: 'POST',
      path: '/login',
      when: (r) => r.body === 'u=admin&p=admin',
      respond: { body: 'welcome', headers: { 'Set-Cookie': 'session=s3cr3t; Path=/' } },
    },
    { method: 'POST', path: '/login', respond: { status: 401, body: 'bad credentials' } },
    { path: '/token', respond: { body: '<input name="csrf" value="tok-123">' } },
    {
      path: '/typed',
      respond: { body: 'typed', headers: { 'Content-Type': 'text/plain', 'X-Trace-Id': 'trace-7' } },
    },
    { path: '/hostile', respond: { body: '<input name="csrf" value="{{base64(username)}}§user§">' } },
    {
      method: 'POST',
      path: '/submit',
      when: (r) => r.body === 'csrf=tok-123',
      respond: { body: 'accepted' },
    },
    { method: 'POST', path: '/submit', respond: { status: 400, body: 'bad token' } },
    { path: '/me', when: (r) => r.cookies.session === 's3cr3t', respond: { body: 'hello admin' } },
    { path: '/me', respond: { status: 401, body: 'who are you' } },
    { path: /^\/item\/\d+$/, respond: (r) => ({ body: `item ${r.path.slice(6)}` }) },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

const header = `
info:
  name: test
  author: tester
  severity: low
`;

describe('variables', () => {
  it('renders the target variables into the request', async () => {
    const t = template(`id: target-vars${header}
http:
  - raw:
      - |
        GET /echo?h={{Hostname}}&host={{Host}}&port={{Port}}&scheme={{Scheme}}&root={{RootURL}}&base={{BaseURL}} HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["path="]
`);
    await runTemplate(t, `${server.url}/app/`, { dispatch });
    const seen = server.requests.at(-1)!;
    expect(seen.path).toBe('/app/echo');
    expect(Object.fromEntries(seen.query)).toEqual({
      h: `127.0.0.1:${server.port}`,
      host: '127.0.0.1',
      port: String(server.port),
      scheme: 'http',
      root: server.url,
      base: `${server.url}/app/`,
    });
  });

  it('evaluates template variables in order, -var overrides a default, payload values win over both', async () => {
    const t = template(`id: var-order${header}
variables:
  user: guest
  greeting: "hi-{{user}}"
  mark: "{{to_upper(user)}}"
http:
  - method: GET
    path: ["{{BaseURL}}/echo?g={{greeting}}&m={{mark}}&p={{pass}}"]
    payloads:
      pass: ["{{user}}-x"]
    matchers:
      - type: word
        words: ["path="]
`);
    await runTemplate(t, server.url, { dispatch });
    expect(Object.fromEntries(server.requests.at(-1)!.query)).toEqual({
      g: 'hi-guest',
      m: 'GUEST',
      p: 'guest-x',
    });
    const run = await runTemplate(t, server.url, { dispatch, variables: { user: 'root', pass: 'ignored' } });
    expect(Object.fromEntries(server.requests.at(-1)!.query)).toEqual({
      g: 'hi-root',
      m: 'ROOT',
      p: 'root-x',
    });
    expect(run.events[0]?.meta).toEqual({ pass: 'root-x' });
  });

  it('gives randstr one value for the whole run, used by the request and the matcher alike', async () => {
    const t = template(`id: randstr${header}
http:
  - raw:
      - |
        GET /echo?a={{randstr}} HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /echo?b={{randstr}} HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["{{randstr}}"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    const [first, second] = server.requests.slice(-2);
    expect(first?.query.get('a')).toMatch(/^[0-9A-Za-z]{27}$/);
    expect(second?.query.get('b')).toBe(first?.query.get('a'));
    expect(run.events).toHaveLength(2);
  });

  it('skips a request whose placeholders stay unresolved, with the rest of its block, and says why', async () => {
    const t = template(`id: unresolved${header}
http:
  - raw:
      - |
        GET /echo?k={{api_key}} HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /echo HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: status
        status: [200]
`);
    const before = server.requests.length;
    const outcomes: string[] = [];
    const run = await runTemplate(t, server.url, { dispatch, onRequest: (o) => outcomes.push(o.kind) });
    expect(server.requests.length).toBe(before);
    expect(run.requests).toBe(0);
    expect(run.skipped).toEqual([
      expect.objectContaining({ block: 0, request: 0, unresolved: ['{{api_key}}'] }),
    ]);
    expect(run.skipped[0]?.reason).toContain('-var');
    expect(outcomes).toEqual(['skipped']);
    const given = await runTemplate(t, server.url, { dispatch, variables: { api_key: 'k1' } });
    expect(given.requests).toBe(2);
  });
});

describe('payloads', () => {
  const attack = (kind: string) =>
    template(`id: attack-${kind}${header}
http:
  - method: GET
    path: ["{{BaseURL}}/echo?u={{user}}&p={{pass}}"]
    attack: ${kind}
    payloads:
      user: [a, b]
      pass: ["1", "2", "3"]
    matchers:
      - type: word
        words: ["path="]
`);

  it('pairs values by position under pitchfork, stopping at the shortest list', async () => {
    const before = server.requests.length;
    await runTemplate(attack('pitchfork'), server.url, { dispatch });
    const sent = server.requests.slice(before).map((r) => `${r.query.get('u')}${r.query.get('p')}`);
    expect(sent).toEqual(['a1', 'b2']);
  });

  it('tries every combination under clusterbomb, the last set varying fastest', async () => {
    const before = server.requests.length;
    const run = await runTemplate(attack('clusterbomb'), server.url, { dispatch });
    const sent = server.requests.slice(before).map((r) => `${r.query.get('u')}${r.query.get('p')}`);
    expect(sent).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    expect(run.events.map((e) => e.meta)).toContainEqual({ user: 'b', pass: '3' });
  });

  it('sends each value of a single set under batteringram, every request of the block for each value', async () => {
    const t = template(`id: batteringram${header}
http:
  - raw:
      - |
        GET /item/{{id}} HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /echo?again={{id}} HTTP/1.1
        Host: {{Hostname}}
    payloads:
      id: [7, 9]
    matchers:
      - type: word
        words: ["item 9"]
`);
    const before = server.requests.length;
    const run = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.slice(before).map((r) => r.target)).toEqual([
      '/item/7',
      '/echo?again=7',
      '/item/9',
      '/echo?again=9',
    ]);
    expect(run.events.map((e) => e.meta)).toEqual([{ id: '9' }]);
  });

  it('stops at the first match when asked', async () => {
    const t = template(`id: stop-first${header}
http:
  - method: GET
    path: ["{{BaseURL}}/item/{{n}}"]
    payloads:
      n: [1, 2, 3, 4]
    stop-at-first-match: true
    matchers:
      - type: regex
        regex: ["item [23]"]
`);
    const before = server.requests.length;
    const run = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.slice(before).map((r) => r.path)).toEqual(['/item/1', '/item/2']);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/item/2`);
  });

  it('runs payload requests in parallel with threads and stops starting new ones at the first match', async () => {
    // Every request but the matching one is held until the finding is reported, so exactly the
    // first `threads` requests are in flight when the block stops.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated = await fixtureServer([
      { path: '/item/3', respond: { body: 'item 3' } },
      { path: /^\/item\/\d+$/, respond: () => held.then(() => ({ body: 'other' })) },
    ]);
    const t = template(`id: threads${header}
http:
  - method: GET
    path: ["{{BaseURL}}/item/{{n}}"]
    payloads:
      n: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    threads: 4
    stop-at-first-match: true
    matchers:
      - type: word
        words: ["item 3"]
`);
    const run = await runTemplate(t, gated.url, { dispatch, onEvent: () => release() });
    await gated.close();
    expect(gated.requests.map((r) => r.path).sort()).toEqual(['/item/1', '/item/2', '/item/3', '/item/4']);
    expect(run.events).toHaveLength(1);
  });

  it('runs all combinations with threads when nothing stops it', async () => {
    const t = template(`id: threads-all${header}
http:
  - method: GET
    path: ["{{BaseURL}}/item/{{n}}"]
    payloads:
      n: [1, 2, 3, 4, 5, 6]
    threads: 3
    matchers:
      - type: word
        words: ["item"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.requests).toBe(6);
    expect(run.events.map((e) => e['matched-at']).sort()).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `${server.url}/item/${n}`),
    );
  });
});

describe('values between requests', () => {
  it('feeds an internal extractor value of one request to the next', async () => {
    const t = template(`id: csrf-chain${header}
http:
  - raw:
      - |
        GET /token HTTP/1.1
        Host: {{Hostname}}
      - |
        POST /submit HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        csrf={{csrf}}
    extractors:
      - type: regex
        name: csrf
        internal: true
        group: 1
        regex: ['name="csrf" value="([^"]+)"']
    matchers:
      - type: dsl
        dsl:
          - 'status_code_2 == 200 && contains(body_2, "accepted") && contains(body_1, "csrf")'
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.at(-1)?.body).toBe('csrf=tok-123');
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/submit`);
  });

  it('gives operators every response value they name: header dump, raw, request, headers, earlier ones', async () => {
    const t = template(`id: every-part${header}
http:
  - raw:
      - |
        GET /typed HTTP/1.1
        Host: {{Hostname}}
        X-Probe: first
      - |
        GET /echo HTTP/1.1
        Host: {{Hostname}}
        X-Probe: second
    matchers-condition: and
    matchers:
      - type: word
        part: all_headers
        words: ["Content-Length: 25"]
      - type: word
        part: header
        words: ["HTTP/1.1 200"]
      - type: word
        part: raw
        words: ["x=second"]
      - type: word
        part: request
        words: ["X-Probe: second"]
      - type: dsl
        dsl:
          - 'x_trace_id_1 == "trace-7" && contains(all_headers_1, "Content-Type") && contains(response_1, "typed")'
          - 'contains(request_1, "X-Probe: first") && status_code_1 == 200 && contains(body_2, "x=second")'
          - 'contains(all, "x=second") && content_length_1 > 0 && contains(header_2, "200")'
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.requests).toBe(2);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.request).toContain('X-Probe: second');
  });

  it('keeps an earlier response under its request number across payload combinations', async () => {
    const t = template(`id: history-payloads${header}
http:
  - raw:
      - |
        GET /echo?n={{n}} HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /item/{{n}} HTTP/1.1
        Host: {{Hostname}}
    payloads:
      n: ["1", "2"]
    matchers:
      - type: dsl
        dsl: ['contains(body_1, "n=" + n) && body_2 == "item " + n']
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events.map((e) => e.meta)).toEqual([{ n: '1' }, { n: '2' }]);
  });

  it('keeps the session cookie between requests, and not with disable-cookie', async () => {
    const body = (disable: boolean) => `id: jar-${disable}${header}
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        u=admin&p=admin
      - |
        GET /me HTTP/1.1
        Host: {{Hostname}}
    disable-cookie: ${disable}
    matchers:
      - type: word
        words: ["hello admin"]
`;
    expect((await runTemplate(template(body(false)), server.url, { dispatch })).matched).toBe(true);
    expect(server.requests.at(-1)?.cookies.session).toBe('s3cr3t');
    expect((await runTemplate(template(body(true)), server.url, { dispatch })).matched).toBe(false);
    expect(server.requests.at(-1)?.cookies.session).toBeUndefined();
  });

  it('passes extracted values to later blocks, several values as name, name1, name2', async () => {
    const t = template(`id: blocks${header}
http:
  - method: GET
    path: ["{{BaseURL}}/token"]
    extractors:
      - type: regex
        name: tok
        internal: true
        group: 1
        regex: ['value="([^"]+)"', '(name)="csrf"']
  - method: GET
    path: ["{{BaseURL}}/echo?t={{tok}}&second={{tok1}}"]
    matchers:
      - type: word
        words: ["t=tok-123"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(server.requests.at(-1)?.target).toBe('/echo?t=tok-123&second=name');
    expect(run.matched).toBe(true);
  });
});

describe('values from responses', () => {
  it('are sent as they are, never evaluated as placeholders', async () => {
    const t = template(`id: hostile-value${header}
variables:
  username: admin
http:
  - raw:
      - |
        GET /hostile HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /echo HTTP/1.1
        Host: {{Hostname}}
        X-Probe: {{csrf}}
    extractors:
      - type: regex
        name: csrf
        internal: true
        group: 1
        regex: ['value="([^"]+)"']
`);
    await runTemplate(t, server.url, { dispatch });
    const sent = Buffer.from(server.requests.at(-1)?.headers['x-probe'] ?? '', 'latin1').toString('utf8');
    expect(sent).toBe('{{base64(username)}}§user§');
  });
});

describe('flow', () => {
  const flowTemplate = (flow: string, firstPath: string) =>
    template(`id: flow${header}
flow: ${flow}
http:
  - method: GET
    path: ["{{BaseURL}}${firstPath}"]
    matchers:
      - type: word
        internal: true
        words: ["csrf"]
    extractors:
      - type: regex
        name: tok
        internal: true
        group: 1
        regex: ['value="([^"]+)"']
  - raw:
      - |
        POST /submit HTTP/1.1
        Host: {{Hostname}}

        csrf={{tok}}
    matchers:
      - type: word
        words: ["accepted"]
`);

  it('runs the second block only when the first matched, with its extracted value', async () => {
    const run = await runTemplate(flowTemplate('http(1) && http(2)', '/token'), server.url, { dispatch });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matched-at']).toBe(`${server.url}/submit`);
  });

  it('does not run the second block when the first did not match', async () => {
    const before = server.requests.length;
    const run = await runTemplate(flowTemplate('http(1) && http(2)', '/me'), server.url, { dispatch });
    expect(server.requests.length).toBe(before + 1);
    expect(run.matched).toBe(false);
  });

  it('runs the second block of an or only when the first did not match', async () => {
    const before = server.requests.length;
    await runTemplate(flowTemplate('http(1) || http(2)', '/token'), server.url, { dispatch });
    expect(server.requests.length).toBe(before + 1);
  });
});

describe('matcher-status mode', () => {
  it('reports one matcher-status false event when nothing matched', async () => {
    const t = template(`id: ms${header}
http:
  - method: GET
    path: ["{{BaseURL}}/me", "{{BaseURL}}/token"]
    matchers:
      - type: word
        words: ["nothing like this"]
`);
    const run = await runTemplate(t, server.url, { dispatch, matcherStatus: true });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]).toMatchObject({ 'matcher-status': false, 'template-id': 'ms', host: '127.0.0.1' });
    expect(run.events[0]?.request).toContain('GET /token');
    expect((await runTemplate(t, server.url, { dispatch })).events).toEqual([]);
  });
});
