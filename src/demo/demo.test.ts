/**
 * The bundled demo (examples/): the demo app's five areas refuse anonymous clients and open to their
 * credential; each detection template finds its planted weakness through keyhole's engine with
 * examples/secrets.yaml, and nothing without it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AreaKey, DEFAULT_PORTS, type DemoApp, start } from '../../examples/demo-app/server.js';
import { runTemplate, TemplateLoginRunner, type TemplateRun } from '../engine/index.js';
import { fixtureServer, type Route } from '../engine/testing/server.js';
import { HttpClient } from '../http/index.js';
import { loadSecretFiles, SecretResolver } from '../secretfile/index.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { loadTemplates, type ParsedTemplate } from '../template/index.js';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const AREA_KEYS: readonly AreaKey[] = ['login', 'bearer', 'basic', 'header', 'query'];
const ANY_PORT = { login: 0, bearer: 0, basic: 0, header: 0, query: 0 };

/** The demo credentials, as the app's README gives them. */
const BEARER = 'demo-inventory-token-7f3c9a';
const BASIC = `Basic ${Buffer.from('ops:demo-admin-password').toString('base64')}`;
const API_KEY = 'demo-billing-key-2b8e41';
const QUERY_TOKEN = 'demo-reports-token-5d21';

let app: DemoApp;
let scratch: string;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  app = await start({ ports: ANY_PORT });
  scratch = mkdtempSync(join(tmpdir(), 'keyhole-demo-'));
});

afterAll(async () => {
  await app.close();
  await client.close();
  rmSync(scratch, { recursive: true, force: true });
});

const get = (area: AreaKey, path: string, headers: Record<string, string> = {}) =>
  fetch(`${app.urls[area]}${path}`, { headers, redirect: 'manual' });

/** Signs in to the login area as a browser would; returns the session cookie. */
async function signIn(password = 'wonderland'): Promise<string | undefined> {
  const form = await get('login', '/login');
  const preSession = form.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const posted = await fetch(`${app.urls.login}/login`, {
    method: 'POST',
    headers: { Cookie: preSession, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, username: 'alice', password }).toString(),
    redirect: 'manual',
  });
  return posted.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith('session='));
}

describe('the demo app', () => {
  it('serves each area on its own port of 127.0.0.1', () => {
    const hosts = AREA_KEYS.map((key) => new URL(app.urls[key]).host);
    expect(hosts.every((host) => host.startsWith('127.0.0.1:'))).toBe(true);
    expect(new Set(hosts).size).toBe(5);
  });

  it('refuses every area to a client without credentials', async () => {
    const refusals = await Promise.all([
      get('login', '/').then((r) => `${r.status} ${r.headers.get('location')}`),
      get('login', '/api/users/1001').then((r) => `${r.status}`),
      get('bearer', '/api/debug/env').then((r) => `${r.status} ${r.headers.get('www-authenticate')}`),
      get('basic', '/.env').then((r) => `${r.status} ${r.headers.get('www-authenticate')}`),
      get('header', '/actuator/info').then((r) => `${r.status}`),
      get('query', '/reports/export?format=nope').then((r) => `${r.status}`),
    ]);
    expect(refusals).toEqual([
      '302 /login',
      '401',
      '401 Bearer realm="inventory"',
      '401 Basic realm="Acme Admin", charset="UTF-8"',
      '401',
      '401',
    ]);
  });

  it('refuses wrong credentials', async () => {
    const statuses = await Promise.all([
      get('bearer', '/api/debug/env', { Authorization: 'Bearer demo-inventory-token-7f3c9b' }),
      get('basic', '/.env', { Authorization: `Basic ${Buffer.from('ops:guess').toString('base64')}` }),
      get('header', '/actuator/info', { 'X-API-Key': API_KEY.toUpperCase() }),
      get('query', `/reports/export?format=nope&token=${QUERY_TOKEN}x`),
    ]);
    expect(statuses.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect(await signIn('alice')).toBeUndefined();
  });

  it('refuses a login form posted without the token of the form it showed', async () => {
    const posted = await fetch(`${app.urls.login}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'csrf=guess&username=alice&password=wonderland',
      redirect: 'manual',
    });
    expect(posted.status).toBe(403);
    expect(posted.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
  });

  it('opens each weakness to the area credential', async () => {
    const session = await signIn();
    expect(session).toMatch(/^session=[0-9a-f]{32}$/);
    const [idor, env, dotenv, info, trace] = await Promise.all([
      get('login', '/api/users/1001', { Cookie: session ?? '' }).then((r) => r.json()),
      get('bearer', '/api/debug/env', { Authorization: `Bearer ${BEARER}` }).then((r) => r.json()),
      get('basic', '/.env', { Authorization: BASIC }).then((r) => r.text()),
      get('header', '/actuator/info', { 'X-API-Key': API_KEY }).then((r) => r.json()),
      get('query', `/reports/export?format=nope&token=${QUERY_TOKEN}`).then(
        async (r) => `${r.status} ${await r.text()}`,
      ),
    ]);
    expect(idor).toMatchObject({ id: 1001, email: 'dana.whitfield@acme-notes.test', role: 'admin' });
    expect(env).toMatchObject({ env: { DATABASE_URL: expect.stringContaining('postgres://inventory:') } });
    expect(dotenv).toMatch(/^DB_PASSWORD=demo-/m);
    expect(info).toMatchObject({ libraries: { 'log4j-core': '2.14.1' } });
    expect(trace).toMatch(
      /^500 Internal Server Error\n\nRangeError: unsupported export format: "nope"\n\s+at /,
    );
  });

  it('keeps its own pages working for the area credential', async () => {
    const session = (await signIn()) ?? '';
    const home = await get('login', '/', { Cookie: session });
    expect(await home.text()).toContain('Signed in as Alice Liddell');
    const me = await get('login', '/api/me', { Cookie: session }).then((r) => r.json());
    expect(me).toMatchObject({ id: 1002, username: 'alice' });
    const csv = await get('query', `/reports/export?format=csv&token=${QUERY_TOKEN}`).then((r) => r.text());
    expect(csv.split('\n')[0]).toBe('id,title,rows');
  });

  it('answers every request, however malformed, and keeps serving', async () => {
    const token = fc.stringMatching(/^[!-~]{1,12}$/);
    const request = fc.record({
      area: fc.constantFrom(...AREA_KEYS),
      method: fc.oneof(
        { arbitrary: fc.constant('GET'), weight: 3 },
        fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
      ),
      target: fc.oneof(
        fc.constantFrom(
          '/login',
          '/api/users/1001',
          '/api/debug/env',
          '/.env',
          '/actuator/info',
          '/reports/export',
        ),
        fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`),
        fc
          .array(fc.constantFrom('/', '%', '%zz', '%2e', '..', '.env', 'api', 'users', '99999999999', 'é'), {
            maxLength: 6,
          })
          .map((parts) => `/${parts.join('')}`),
        token.map((t) => `/${t}`),
      ),
      query: fc.array(fc.tuple(token, fc.string()), { maxLength: 3 }),
      headers: fc.array(
        fc.tuple(fc.constantFrom('Authorization', 'Cookie', 'X-API-Key', 'Content-Type'), fc.string()),
        { maxLength: 3 },
      ),
      body: fc.string({ maxLength: 200 }),
      signedIn: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, fc.constant(false)),
    });
    const session = (await signIn()) ?? '';
    const credential: Record<AreaKey, readonly [string, string]> = {
      login: ['Cookie', session],
      bearer: ['Authorization', `Bearer ${BEARER}`],
      basic: ['Authorization', BASIC],
      header: ['X-API-Key', API_KEY],
      query: ['X-Unused', ''],
    };
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const query: [string, string][] = [
          ...r.query,
          ...(r.signedIn ? [['token', QUERY_TOKEN] satisfies [string, string]] : []),
        ];
        const target = `${r.target}?${new URLSearchParams(query).toString()}`;
        const headers = r.signedIn
          ? [credential[r.area], ...r.headers.filter(([n]) => n !== credential[r.area][0])]
          : r.headers;
        const status = await exchange(r.area, r.method, target, headers, r.body);
        expect(status).toBeGreaterThanOrEqual(200);
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    const after = await Promise.all(AREA_KEYS.map((area) => exchange(area, 'GET', '/', [], '')));
    expect(after).toEqual([302, 401, 401, 401, 401]);
  });

  it('refuses a body larger than it ever needs', async () => {
    const status = await exchange('login', 'POST', '/login', [], 'x'.repeat(64 * 1024));
    expect(status).toBe(413);
  });

  it('says which area cannot get its port and leaves no area running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(start({ ports: { ...ANY_PORT, basic: port } })).rejects.toThrow(
        `port ${port} (the basic area) is already in use`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('rejects an unknown area or a port out of range by name', async () => {
    await expect(start({ ports: { ...ANY_PORT, admin: 1 } as never })).rejects.toThrow(
      'unknown area "admin"; the areas are login, bearer, basic, header, query',
    );
    await expect(start({ ports: { ...ANY_PORT, query: 70000 } })).rejects.toThrow(
      'the port of the query area must be 0-65535, not 70000',
    );
  });
});

/**
 * Sends one request as written (no client-side checks) and returns the response status, or 0 when the
 * connection closed without a response.
 */
function exchange(
  area: AreaKey,
  method: string,
  target: string,
  headers: readonly (readonly [string, string])[],
  body: string,
): Promise<number> {
  const { port } = new URL(app.urls[area]);
  const head = [
    `${method} ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    ...headers.map(([name, value]) => `${name}: ${value.replace(/[\r\n]/g, ' ')}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
    socket.end(`${head}\r\n\r\n${body}`);
  });
}

/** examples/secrets.yaml with each area's default port replaced by the port it runs on in the test. */
function secretsForApp(file = 'secrets.yaml', edit: (text: string) => string = (t) => t): string {
  let text = readFileSync(join(examples, file), 'utf8');
  for (const key of AREA_KEYS) {
    const port = `:${DEFAULT_PORTS[key]}'`;
    expect(text, `examples/${file} names the ${key} area's port`).toContain(port);
    text = text.replaceAll(port, `:${new URL(app.urls[key]).port}'`);
  }
  const path = join(scratch, `secrets-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, edit(text));
  return path;
}

async function resolverFor(path: string): Promise<SecretResolver> {
  const loaded = await loadSecretFiles([path], { cwd: examples, env: {}, checkPermissions: false });
  expect(loaded.diagnostics).toEqual([]);
  if (loaded.secrets === undefined) throw new Error('the secret file did not load');
  return new SecretResolver(loaded.secrets, { runner: new TemplateLoginRunner({ dispatch }) });
}

async function demoTemplates(): Promise<ParsedTemplate[]> {
  const results = await loadTemplates([join(examples, 'templates/demo')]);
  return results.map((result) => {
    if (result.status !== 'ok') throw new Error(`${result.file} does not load: ${result.status}`);
    return result.template;
  });
}

/** Runs every demo template against every area; the runs, by "template-id area". */
async function scanAll(resolver: SecretResolver | undefined): Promise<Map<string, TemplateRun>> {
  const runs = new Map<string, TemplateRun>();
  for (const template of await demoTemplates()) {
    for (const area of AREA_KEYS) {
      const run = await runTemplate(template, app.urls[area], {
        dispatch,
        ...(resolver === undefined ? {} : { dispatch: chain(dispatch, [withSecrets(resolver)]) }),
      });
      runs.set(`${template.id} ${area}`, run);
    }
  }
  return runs;
}

const findings = (runs: Map<string, TemplateRun>) =>
  [...runs]
    .filter(([, run]) => run.matched)
    .map(([key, run]) => [key, run.events.map((e) => e['extracted-results'])]);

describe('the demo templates', () => {
  it('find each planted weakness in its own area with the secret file, and nothing elsewhere', async () => {
    const runs = await scanAll(await resolverFor(secretsForApp()));
    expect(findings(runs)).toEqual([
      ['acme-admin-dotenv basic', [['APP_KEY', 'DB_PASSWORD', 'MAIL_PASSWORD']]],
      ['acme-billing-log4j-version header', [['2.14.1']]],
      [
        'acme-inventory-debug-env bearer',
        [['postgres://inventory:Inv3nt0ry-demo-only@db.internal.acme.test:5432/inventory']],
      ],
      ['acme-notes-user-idor login', [['dana.whitfield@acme-notes.test']]],
      ['acme-reports-stack-trace query', [[expect.stringMatching(/demo-app\/areas\/reports\.js$/)]]],
    ]);
    expect([...runs.values()].flatMap((run) => run.failures)).toEqual([]);
  });

  it('find nothing without the secret file', async () => {
    const runs = await scanAll(undefined);
    expect(findings(runs)).toEqual([]);
    expect([...runs.values()].flatMap((run) => run.failures)).toEqual([]);
  });

  it("send each area's credential to that area only", async () => {
    const runs = await scanAll(await resolverFor(secretsForApp()));
    const credentials: Record<AreaKey, string> = {
      login: 'Cookie: session=',
      bearer: `Bearer ${BEARER}`,
      basic: BASIC,
      header: `X-API-Key: ${API_KEY}`,
      query: `token=${QUERY_TOKEN}`,
    };
    for (const [key, run] of runs) {
      const area = key.split(' ')[1] as AreaKey;
      for (const event of run.events) {
        const others = AREA_KEYS.filter((k) => k !== area).map((k) => credentials[k]);
        expect(others.filter((c) => event.request?.includes(c))).toEqual([]);
        expect(event.request).toContain(credentials[area]);
      }
    }
  });

  it('report a failed login and send nothing to the login area unauthenticated', async () => {
    const wrongPassword = secretsForApp('secrets.yaml', (text) =>
      text.replace('value: wonderland', 'value: looking-glass'),
    );
    const resolver = await resolverFor(wrongPassword);
    const [idor] = (await demoTemplates()).filter((t) => t.id === 'acme-notes-user-idor');
    const run = await runTemplate(idor!, app.urls.login, {
      dispatch: chain(dispatch, [withSecrets(resolver)]),
    });
    expect(run.matched).toBe(false);
    expect(run.requests).toBe(0);
    expect(run.failures.map((f) => `${f.kind}: ${f.message}`)).toEqual([
      expect.stringMatching(/^refused: .*did not match.*the last response had status 200/),
    ]);
  });
});

describe('the demo templates against the weaknesses fixed', () => {
  const json = (value: unknown, status = 200) => ({
    status,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  const alice = { id: 1002, email: 'alice@acme-notes.test' };
  const spaPage = {
    headers: { 'Content-Type': 'text/html' },
    body: '<html><body><pre>DB_HOST=\nDB_PASSWORD=see-the-docs</pre></body></html>',
  };

  /** Each template, and app answers that show the weakness (first) or its fix (the rest). */
  const cases: [string, Route[], ...Route[][]][] = [
    [
      'acme-notes-user-idor',
      [
        { path: '/api/me', respond: json(alice) },
        { path: '/api/users/1001', respond: json({ id: 1001, email: 'dana@x.test' }) },
      ],
      [
        { path: '/api/me', respond: json(alice) },
        { path: '/api/users/1001', respond: json({ error: 'forbidden' }, 403) },
      ],
      [
        { path: '/api/me', respond: json(alice) },
        { path: '/api/users/1001', respond: json(alice) },
      ],
    ],
    [
      'acme-billing-log4j-version',
      [{ path: '/actuator/info', respond: json({ libraries: { 'log4j-core': '2.14.1' } }) }],
      [{ path: '/actuator/info', respond: json({ libraries: { 'log4j-core': '2.17.1' } }) }],
      [{ path: '/actuator/info', respond: json({ libraries: { 'spring-boot': '2.5.6' } }) }],
    ],
    [
      'acme-admin-dotenv',
      [
        {
          path: '/.env',
          respond: { headers: { 'Content-Type': 'text/plain' }, body: 'DB_HOST=db\nDB_PASSWORD=x\n' },
        },
      ],
      [{ path: '/.env', respond: spaPage }],
    ],
    [
      'acme-inventory-debug-env',
      [
        {
          path: '/api/debug/env',
          respond: json({ env: { NODE_ENV: 'production', DATABASE_URL: 'postgres://x' } }),
        },
      ],
      [{ path: '/api/debug/env', respond: json({ error: 'not found' }, 404) }],
      [{ path: /.*/, respond: spaPage }],
    ],
    [
      'acme-reports-stack-trace',
      [
        {
          path: '/reports/export',
          respond: { status: 500, body: 'TypeError: x\n    at f (/srv/app.js:1:2)\n' },
        },
      ],
      [{ path: '/reports/export', respond: { status: 500, body: 'Internal Server Error (error id 7f3a)' } }],
      [{ path: '/reports/export', respond: { status: 400, body: 'unsupported format' } }],
    ],
  ];

  it.each(cases)('%s reports the weakness and none of its fixes', async (id, weak, ...fixes) => {
    const [template] = (await demoTemplates()).filter((t) => t.id === id);
    const outcomes: boolean[] = [];
    for (const routes of [weak, ...fixes]) {
      const server = await fixtureServer(routes);
      try {
        outcomes.push((await runTemplate(template!, server.url, { dispatch })).matched);
      } finally {
        await server.close();
      }
    }
    expect(outcomes).toEqual([true, ...fixes.map(() => false)]);
  });
});
