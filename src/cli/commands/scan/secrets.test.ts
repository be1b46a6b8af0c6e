/**
 * `keyhole scan` end to end against three real hosts on loopback (127.0.0.1, 127.0.0.2 and
 * localhost, each server bound to its own address): every secret reaches exactly the hosts it
 * matches, over redirects and absolute URLs too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, socks5Proxy } from '../../../http/testing/proxies.js';
import { type SeenRequest, startHosts, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

let hosts: TestHost[];
let ws: Workspace;

const byName = (name: string) => hosts.find((h) => h.name === name) as TestHost;

beforeAll(async () => {
  hosts = await startHosts((request, host) => {
    if (request.path === '/go-to') {
      const to = byName(request.query.get('host') ?? '');
      return { status: 302, headers: { Location: `${to.origin}/landing` } };
    }
    return { body: `ok from ${host.name}` };
  });
  ws = new Workspace();
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  ws.remove();
});

afterEach(() => {
  for (const host of hosts) host.requests.length = 0;
});

interface SecretCase {
  readonly type: string;
  /** The entry's fields after `type` and its scope. */
  readonly fields: string;
  /** Values that must never reach another host. */
  readonly values: readonly string[];
  /** Whether a request carries the secret where its type puts it. */
  readonly carries: (request: SeenRequest) => boolean;
}

const CASES: readonly SecretCase[] = [
  {
    type: 'basicauth',
    fields: 'username: basic-user-7f3a\n    password: basic-pass-91c2',
    values: [
      'basic-user-7f3a',
      'basic-pass-91c2',
      Buffer.from('basic-user-7f3a:basic-pass-91c2').toString('base64'),
    ],
    carries: (r) =>
      r.headers.authorization ===
      `Basic ${Buffer.from('basic-user-7f3a:basic-pass-91c2').toString('base64')}`,
  },
  {
    type: 'bearertoken',
    fields: 'token: bearer-token-5d1e',
    values: ['bearer-token-5d1e'],
    carries: (r) => r.headers.authorization === 'Bearer bearer-token-5d1e',
  },
  {
    type: 'header',
    fields: 'headers: [{key: X-Api-Key, value: header-value-2b8f}]',
    values: ['header-value-2b8f'],
    carries: (r) => r.headers['x-api-key'] === 'header-value-2b8f',
  },
  {
    type: 'cookie',
    fields: 'cookies: [{key: sid, value: cookie-value-6a4d}]',
    values: ['cookie-value-6a4d'],
    carries: (r) => r.cookies.sid === 'cookie-value-6a4d',
  },
  {
    type: 'query',
    fields: 'params: [{key: api_key, value: query-value-3e9c}]',
    values: ['query-value-3e9c'],
    carries: (r) => r.query.get('api_key') === 'query-value-3e9c',
  },
];

async function scanAll(secretFile: string, template: string, extra: readonly string[] = []) {
  const result = await ws.cli([
    'scan',
    ...hosts.flatMap((h) => ['-u', h.origin]),
    '-t',
    template,
    '-sf',
    secretFile,
    '--no-store',
    '-rl',
    '0',
    ...extra,
  ]);
  expect(result.code, result.err).toBe(0);
  return result;
}

function expectNoSecret(requests: readonly SeenRequest[], values: readonly string[]): void {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    for (const value of values) expect(request.raw).not.toContain(value);
    expect(request.headers.authorization).toBeUndefined();
  }
}

describe('each secret type reaches exactly the hosts it matches', () => {
  const template = () =>
    ws.file('two-paths.yaml', pathsTemplate('two-paths', ['{{BaseURL}}/a?x=1', '{{BaseURL}}/b']));

  for (const [i, c] of CASES.entries()) {
    for (const scope of ['domains', 'domains-regex'] as const) {
      it(`${c.type} scoped with ${scope}`, async () => {
        const target = hosts[i % hosts.length] as TestHost;
        const pattern = target.authority.replaceAll('.', '\\.');
        const scopeLine =
          scope === 'domains' ? `domains: ["${target.authority}"]` : `domains-regex: ['${pattern}']`;
        const file = ws.file(
          `${c.type}-${scope}.yaml`,
          `static:\n  - type: ${c.type}\n    ${scopeLine}\n    ${c.fields}\n`,
        );
        await scanAll(file, template());
        expect(target.requests.map((r) => r.path).sort()).toEqual(['/a', '/b']);
        for (const request of target.requests) expect(c.carries(request), request.raw).toBe(true);
        for (const other of hosts.filter((h) => h !== target)) expectNoSecret(other.requests, c.values);
      });
    }
  }
});

describe('which entry wins', () => {
  it('gives a host its domains entry even when a domains-regex entry matching it comes first', async () => {
    const special = byName('127.0.0.2');
    const file = ws.file(
      'precedence.yaml',
      `static:
  - type: bearertoken
    domains-regex: ['.*']
    token: regex-token-for-all
  - type: bearertoken
    domains: ["${special.authority}"]
    token: domain-token-for-one
`,
    );
    await scanAll(file, ws.file('one.yaml', pathsTemplate('one', ['{{BaseURL}}/'])));
    for (const host of hosts) {
      const expected = host === special ? 'Bearer domain-token-for-one' : 'Bearer regex-token-for-all';
      expect(host.requests.map((r) => r.headers.authorization)).toEqual([expected]);
    }
  });
});

describe('the secret decision is taken again for every request destination', () => {
  const headerFor = (host: TestHost) =>
    ws.file(
      `only-${host.name}.yaml`,
      `static:\n  - type: header\n    domains: ["${host.authority}"]\n    headers: [{key: X-Api-Key, value: only-for-${host.name}-key}]\n`,
    );

  it('sends no secret to the host a matching host redirects to', async () => {
    const from = byName('127.0.0.1');
    const redirect = ws.file(
      'redirect.yaml',
      pathsTemplate(
        'redirect',
        ['{{BaseURL}}/go-to?host=127.0.0.2', '{{BaseURL}}/go-to?host=localhost'],
        '    redirects: true\n    max-redirects: 3\n',
      ),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      from.origin,
      '-t',
      redirect,
      '-sf',
      headerFor(from),
      '--no-store',
      '-j',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(from.requests.map((r) => r.headers['x-api-key'])).toEqual([
      'only-for-127.0.0.1-key',
      'only-for-127.0.0.1-key',
    ]);
    for (const name of ['127.0.0.2', 'localhost']) {
      const landed = byName(name).requests;
      expect(landed.map((r) => r.path)).toEqual(['/landing']);
      expectNoSecret(landed, ['only-for-127.0.0.1-key']);
    }
  });

  it('sends no secret to another host named by an absolute URL or @Host inside a template', async () => {
    const target = byName('127.0.0.1');
    const other = byName('127.0.0.2');
    const elsewhere = byName('localhost');
    const template = ws.file(
      'absolute.yaml',
      `id: absolute
info: {name: absolute, author: keyhole, severity: info}
http:
  - method: GET
    path:
      - "{{BaseURL}}/own"
      - "${other.origin}/absolute"
    matchers:
      - type: word
        words: ["ok"]
  - raw:
      - |
        @Host: ${elsewhere.origin}
        GET /annotated HTTP/1.1
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["ok"]
`,
    );
    const result = await ws.cli([
      'scan',
      '-u',
      target.origin,
      '-t',
      template,
      '-sf',
      headerFor(target),
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(target.requests.map((r) => [r.path, r.headers['x-api-key']])).toEqual([
      ['/own', 'only-for-127.0.0.1-key'],
    ]);
    expect(other.requests.map((r) => r.path)).toEqual(['/absolute']);
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/annotated']);
    expectNoSecret([...other.requests, ...elsewhere.requests], ['only-for-127.0.0.1-key']);
  });
});

describe('before the first request', () => {
  it('warns about an entry written without its target port and sums up the targets that get no secret', async () => {
    const [first, second] = [byName('127.0.0.1'), byName('127.0.0.2')];
    const template = ws.file('page.yaml', pathsTemplate('page', ['{{BaseURL}}/page']));
    const secrets = ws.file(
      'no-port.yaml',
      `static:
  - type: bearertoken
    domains: ["127.0.0.1"]
    token: no-port-token-0a1b
`,
    );
    const many = Array.from({ length: 6 }, (_, i) => `http://127.0.0.2:${second.port}/t${i}`);
    const result = await ws.cli([
      'scan',
      '-u',
      first.origin,
      ...many.flatMap((t) => ['-u', t]),
      '-t',
      template,
      '-sf',
      secrets,
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const [warning, uncovered] = result.err.split('\n').filter((l) => l.startsWith('[WRN]'));
    expect(warning).toBe(
      `[WRN] static[0] of no-port.yaml (bearertoken for 127.0.0.1) applies to none of the scan's targets: 127.0.0.1 is written without the port of the target ${first.origin}; write "127.0.0.1:${first.port}"`,
    );
    expect(uncovered).toBe(
      `[WRN] 7 of 7 targets get no secret from the secret files (first: ${[first.origin, ...many.slice(0, 4)].join(', ')}, and 2 more); their requests go unauthenticated`,
    );
    expect(result.err.indexOf('[WRN]')).toBeLessThan(result.err.indexOf('scan finished'));
    expect(result.err).toContain('  authenticated  0 of 7 requests\n');
  });
});

describe('through a proxy (-proxy), secrets still go by the target host', () => {
  const template = () => ws.file('one-path.yaml', pathsTemplate('one-path', ['{{BaseURL}}/p']));
  const bearer = CASES[1] as SecretCase;

  for (const [kind, start] of [
    ['http', connectProxy],
    ['socks5', socks5Proxy],
  ] as const) {
    it(`sends every target's requests through a ${kind} proxy, each secret to its own host only`, async () => {
      const proxy = await start('scan:pr0xy-pass');
      try {
        const target = hosts[0] as TestHost;
        const file = ws.file(
          `proxied-${kind}.yaml`,
          `static:\n  - type: bearertoken\n    domains: ["${target.authority}"]\n    ${bearer.fields}\n`,
        );
        const result = await scanAll(file, template(), [
          '-proxy',
          `${kind}://scan:pr0xy-pass@127.0.0.1:${proxy.port}`,
        ]);
        expect(result.err).toContain(
          `[INF] every request goes through the proxy ${kind}://scan:****@127.0.0.1:${proxy.port}`,
        );
        expect(result.err).not.toContain('pr0xy-pass');
        expect([...proxy.tunnels].sort()).toEqual(hosts.map((h) => h.authority).sort());
        expect(target.requests.every((r) => bearer.carries(r))).toBe(true);
        for (const other of hosts.filter((h) => h !== target)) expectNoSecret(other.requests, bearer.values);
        for (const host of hosts) for (const r of host.requests) expect(r.raw).not.toContain('pr0xy');
      } finally {
        await proxy.close();
      }
    });
  }

  it('uses the first proxy of a list that answers, and sends nothing when none does', async () => {
    const live = await connectProxy();
    const dead = await connectProxy();
    await dead.close();
    try {
      const list = ws.file(
        'proxies.txt',
        `# ours\nhttp://127.0.0.1:${dead.port}\n\nhttp://127.0.0.1:${live.port}\n`,
      );
      const proxied = await ws.cli([
        'scan',
        ...hosts.flatMap((h) => ['-u', h.origin]),
        '-t',
        template(),
        '--no-store',
        '-proxy',
        list,
      ]);
      expect(proxied.code, proxied.err).toBe(0);
      expect(live.tunnels).toHaveLength(hosts.length);
      for (const host of hosts) host.requests.length = 0;
      const refused = await ws.cli([
        'scan',
        '-u',
        (hosts[0] as TestHost).origin,
        '-t',
        template(),
        '--no-store',
        '-p',
        `127.0.0.1:${dead.port}`,
      ]);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(
        `-proxy: no proxy answers: http://127.0.0.1:${dead.port} (ECONNREFUSED); no request was sent`,
      );
      expect(hosts.flatMap((h) => h.requests)).toEqual([]);
    } finally {
      await live.close();
    }
  });

  it('names the line of a proxy file that is not a proxy', async () => {
    const list = ws.file('bad-proxies.txt', 'http://127.0.0.1:1\nftp://nope\n');
    const result = await ws.cli([
      'scan',
      '-u',
      (hosts[0] as TestHost).origin,
      '-t',
      template(),
      '--no-store',
      '-proxy',
      list,
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `-proxy ${list}:2: "ftp://nope": keyhole proxies through http, https or socks5, not ftp`,
    );
  });
});

describe('-v and -debug show what goes on the wire, secrets masked', () => {
  const template = () => ws.file('one-path.yaml', pathsTemplate('one-path', ['{{BaseURL}}/p']));
  const secretFile = () =>
    ws.file(
      'debugged.yaml',
      `static:\n  - type: bearertoken\n    domains: ["${(hosts[0] as TestHost).authority}"]\n    token: dbg-token-4242\n`,
    );

  it('-debug shows each request with its secret masked, and each response as received', async () => {
    const target = hosts[0] as TestHost;
    const result = await ws.cli([
      'scan',
      '-u',
      target.origin,
      '-t',
      template(),
      '-sf',
      secretFile(),
      '--no-store',
      '-debug',
      '-silent',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(
      `[DBG] request to ${target.origin}/p\n\nGET /p HTTP/1.1\nHost: ${target.authority}\n`,
    );
    expect(result.err).toMatch(/\nAuthorization: Bearer \[REDACTED\]\n/);
    expect(result.err).toContain(`[DBG] response from ${target.origin}/p\n\nHTTP/1.1 200 OK\n`);
    expect(result.err).toContain(`ok from ${target.name}`);
    expect(result.err).not.toContain('dbg-token-4242');
    expect(target.requests[0]?.headers.authorization).toBe('Bearer dbg-token-4242');
  });

  it('-debug-req shows only requests, -debug-resp only responses, -v a line per request', async () => {
    const target = hosts[0] as TestHost;
    const base = ['scan', '-u', target.origin, '-t', template(), '--no-store', '-silent'];
    const requests = await ws.cli([...base, '-debug-req']);
    expect(requests.err).toContain('[DBG] request to');
    expect(requests.err).not.toContain('[DBG] response from');
    const responses = await ws.cli([...base, '-dresp']);
    expect(responses.err).not.toContain('[DBG] request to');
    expect(responses.err).toContain('[DBG] response from');
    const lines = await ws.cli([...base, '-v']);
    expect(lines.err).toBe(`[VER] sent a request to ${target.origin}/p\n`);
  });
});
