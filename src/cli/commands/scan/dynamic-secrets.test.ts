/**
 * Dynamic secrets through `keyhole scan`: a login template run once for its entry (lazily, or before
 * the scan with -ps), its session sent to the hosts in scope, a failed login refusing every request
 * in scope, and `reauth:` logging in again when the app expires the session.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

/** The app on 127.0.0.1: a form login handing out `session=s<n>`, pages that need a live session. */
const app = {
  logins: 0,
  loginDelayMs: 0,
  /** A session stops working after this many uses (the app expired it). */
  expireAfter: Number.POSITIVE_INFINITY,
  uses: new Map<string, number>(),
  reset() {
    this.logins = 0;
    this.loginDelayMs = 0;
    this.expireAfter = Number.POSITIVE_INFINITY;
    this.uses.clear();
  },
};

let appHost: TestHost;
let otherHost: TestHost;
let ws: Workspace;

function answer(request: SeenRequest) {
  if (request.path === '/login' && request.method === 'GET') {
    return { body: '<form action="/login"><input name="csrf" value="csrf-1f2e"></form>' };
  }
  if (request.path === '/login') {
    const form = new URLSearchParams(request.body);
    if (
      form.get('csrf') !== 'csrf-1f2e' ||
      form.get('username') !== 'admin' ||
      form.get('password') !== 'hunter2'
    )
      return { status: 401, body: 'wrong credentials' };
    app.logins++;
    const session = `s${app.logins}-9a8b7c`;
    app.uses.set(session, 0);
    return {
      status: 302,
      headers: { Location: '/', 'Set-Cookie': `session=${session}; Path=/; HttpOnly` },
      delayMs: app.loginDelayMs,
    };
  }
  const session = request.cookies.session ?? '';
  const uses = app.uses.get(session);
  if (uses === undefined || uses >= app.expireAfter) {
    return { status: 401, body: 'session expired <form action="/login">' };
  }
  app.uses.set(session, uses + 1);
  return { body: `ok: data of ${session}` };
}

const LOGIN_TEMPLATE = `id: app-login
info: {name: App login, author: keyhole, severity: info}
http:
  - raw:
      - |
        GET /login HTTP/1.1
        Host: {{Hostname}}
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        csrf={{csrf}}&username={{username}}&password={{password}}
    matchers:
      - type: status
        status: [302]
    extractors:
      - type: regex
        name: csrf
        internal: true
        group: 1
        regex: ['name="csrf" value="([^"]+)"']
      - type: regex
        name: session
        internal: true
        part: header
        group: 1
        regex: ['Set-Cookie: (session=[^;]+)']
`;

function secretFile(
  options: { password?: string; input?: boolean | string; reauth?: string; template?: string } = {},
): string {
  return ws.file(
    'dynamic.yaml',
    `dynamic:
  - template: ${options.template ?? 'login.yaml'}
${options.input === undefined || options.input === false ? '' : `    input: ${options.input === true ? appHost.origin : options.input}\n`}    variables:
      - {name: username, value: admin}
      - {name: password, value: ${options.password ?? 'hunter2'}}
${options.reauth ?? ''}    type: cookie
    domains: ["${appHost.authority}"]
    cookies:
      - raw: "{{session}}"
`,
  );
}

beforeAll(async () => {
  appHost = await startHost('127.0.0.1', answer);
  otherHost = await startHost('127.0.0.2', () => ({ body: 'ok from elsewhere' }));
  ws = new Workspace();
  ws.file('login.yaml', LOGIN_TEMPLATE);
});

afterAll(async () => {
  await appHost.close();
  await otherHost.close();
  ws.remove();
});

afterEach(() => {
  app.reset();
  appHost.requests.length = 0;
  otherHost.requests.length = 0;
});

const loginRequests = (host: TestHost) => host.requests.filter((r) => r.path === '/login');
const appRequests = (host: TestHost) => host.requests.filter((r) => r.path !== '/login');

describe('a dynamic secret in a scan', () => {
  it('logs in on first need and sends the session to the hosts in scope only', async () => {
    const template = ws.file('pages.yaml', pathsTemplate('pages', ['{{BaseURL}}/a', '{{BaseURL}}/b']));
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-u',
      otherHost.origin,
      '-t',
      template,
      '-sf',
      secretFile(),
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.logins).toBe(1);
    expect(appRequests(appHost).map((r) => [r.path, r.cookies.session])).toEqual([
      ['/a', 's1-9a8b7c'],
      ['/b', 's1-9a8b7c'],
    ]);
    expect(otherHost.requests.map((r) => [r.path, r.headers.cookie])).toEqual([
      ['/a', undefined],
      ['/b', undefined],
    ]);
    expect(result.out.split('\n').filter((l) => l !== '')).toHaveLength(4);
    // The login template's own match is not a finding of the scan.
    expect(result.out).not.toContain('app-login');
    expect(result.err).toContain(`[INF] logging in for dynamic[0] of dynamic.yaml at ${appHost.origin}`);
  });

  it('runs one login for 50 concurrent requests in its scope', async () => {
    app.loginDelayMs = 200;
    const template = ws.file(
      'fifty.yaml',
      `id: fifty
info: {name: fifty, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/item/{{n}}"]
    threads: 50
    payloads:
      n: [${Array.from({ length: 50 }, (_, i) => i + 1).join(', ')}]
    matchers:
      - type: word
        words: ["ok"]
`,
    );
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile(),
      '--no-store',
      '-rl',
      '0',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.logins).toBe(1);
    expect(loginRequests(appHost)).toHaveLength(2);
    const items = appRequests(appHost);
    expect(items).toHaveLength(50);
    expect(new Set(items.map((r) => r.cookies.session))).toEqual(new Set(['s1-9a8b7c']));
    expect(result.out.trim().split('\n')).toHaveLength(50);
  });

  it('fails the scan when a login fails: said even with -silent, nothing in its scope sent, the rest scanned (exit 2)', async () => {
    const template = ws.file(
      'three.yaml',
      pathsTemplate('three', ['{{BaseURL}}/1', '{{BaseURL}}/2', '{{BaseURL}}/3']),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-u',
      otherHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ password: 'wrong-password' }),
      '--no-store',
      '-silent',
    ]);
    expect(result.code, result.err).toBe(2);
    // Nothing but the login itself reached the app: no request went out unauthenticated.
    expect(appRequests(appHost)).toEqual([]);
    expect(loginRequests(appHost)).toHaveLength(2);
    const why =
      'the login template app-login did not match: the login was probably refused (the last response had status 401)';
    expect(result.err).toBe(
      `[ERR] login failed for dynamic[0] of dynamic.yaml: ${why}; requests in its scope are not sent\n` +
        `error: authentication failed: dynamic[0] of dynamic.yaml: ${why}; 3 requests in its scope were not sent\n`,
    );
    expect(otherHost.requests.map((r) => r.path)).toEqual(['/1', '/2', '/3']);
    expect(result.out.trim().split('\n')).toEqual([
      `[three] [http] [info] ${otherHost.origin}/1`,
      `[three] [http] [info] ${otherHost.origin}/2`,
      `[three] [http] [info] ${otherHost.origin}/3`,
    ]);
  });

  it('shows the first request a failed login refused, counts the rest, and sums them up per entry', async () => {
    const template = ws.file(
      'three.yaml',
      pathsTemplate('three', ['{{BaseURL}}/1', '{{BaseURL}}/2', '{{BaseURL}}/3']),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-u',
      otherHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ password: 'wrong-password' }),
      '--no-store',
      '-c',
      '1',
    ]);
    expect(result.code, result.err).toBe(2);
    expect(result.err.match(/login failed for dynamic\[0\] of dynamic\.yaml/g)).toHaveLength(1);
    expect(result.err.match(/not sent: /g)).toHaveLength(1);
    expect(result.err).toContain(
      `[ERR] [three] ${appHost.origin}/1: not sent: the login of dynamic[0] of dynamic.yaml failed: `,
    );
    expect(result.err).toMatch(/^scan failed after \S+: 2 of 2 template runs done$/m);
    expect(result.err).toContain('  authenticated  0 of 3 requests\n');
    expect(result.err).toContain(
      '    dynamic[0] of dynamic.yaml  0 requests, 3 not sent; 1 login, 1 failed\n',
    );
    expect(result.err).toMatch(/errors +4\n/);
  });

  it('logs in again once the app expires the session, and the request that found out succeeds', async () => {
    app.expireAfter = 3;
    const template = ws.file(
      'six.yaml',
      pathsTemplate(
        'six',
        Array.from({ length: 6 }, (_, i) => `{{BaseURL}}/data?n=${i + 1}`),
      ),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ reauth: '    reauth: {status: [401], max: 2}\n' }),
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.logins).toBe(2);
    expect(appRequests(appHost).map((r) => `${r.target} ${r.cookies.session}`)).toEqual([
      '/data?n=1 s1-9a8b7c',
      '/data?n=2 s1-9a8b7c',
      '/data?n=3 s1-9a8b7c',
      '/data?n=4 s1-9a8b7c',
      '/data?n=4 s2-9a8b7c',
      '/data?n=5 s2-9a8b7c',
      '/data?n=6 s2-9a8b7c',
    ]);
    expect(result.out.trim().split('\n')).toHaveLength(6);
    expect(result.err).toContain('[INF] logging in again for dynamic[0] of dynamic.yaml');
  });

  it('fails the scan when the session is lost again past reauth max, sending no request a third time', async () => {
    app.expireAfter = 1;
    const template = ws.file(
      'four.yaml',
      pathsTemplate('four', [
        '{{BaseURL}}/d?n=1',
        '{{BaseURL}}/d?n=2',
        '{{BaseURL}}/d?n=3',
        '{{BaseURL}}/d?n=4',
      ]),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ reauth: '    reauth: {status: [401], max: 1}\n' }),
      '--no-store',
      '-silent',
    ]);
    expect(result.code, result.err).toBe(2);
    expect(app.logins).toBe(2);
    // n=1 with s1; n=2 refused (s1 used up), login s2, n=2 again; n=3 refused, not sent again; n=4 likewise.
    expect(appRequests(appHost).map((r) => `${r.target} ${r.cookies.session}`)).toEqual([
      '/d?n=1 s1-9a8b7c',
      '/d?n=2 s1-9a8b7c',
      '/d?n=2 s2-9a8b7c',
      '/d?n=3 s2-9a8b7c',
      '/d?n=4 s2-9a8b7c',
    ]);
    const lost =
      'the session was lost again after 1 re-login (reauth max: 1); responses that show it lost are kept as they are';
    expect(result.err).toBe(
      `[ERR] dynamic[0] of dynamic.yaml: ${lost}\nerror: authentication failed: dynamic[0] of dynamic.yaml: ${lost}\n`,
    );
  });

  it('logs in at an input written without a scheme, probed as a scan probes a target', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ input: appHost.authority }),
      '-ps',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.logins).toBe(1);
    // The probe (GET /, no secret: it only asks whether HTTP answers), then the page with the session.
    expect(appRequests(appHost).map((r) => `${r.path} ${r.cookies.session}`)).toEqual([
      '/ undefined',
      '/page s1-9a8b7c',
    ]);
  });

  it('with -ps, logs in before any scan request', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      otherHost.origin,
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ input: true }),
      '-ps',
      '--no-store',
      '-c',
      '1',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(appHost.requests.map((r) => r.path)).toEqual(['/login', '/login', '/page']);
    // The login was over before the first target (127.0.0.2) was scanned.
    expect(result.err.indexOf('[INF] logged in')).toBeLessThan(result.err.indexOf('scan finished'));
  });

  it('with -ps, stops before any scan request when a login fails (exit 1)', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      otherHost.origin,
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ input: true, password: 'wrong-password' }),
      '-ps',
      '--no-store',
    ]);
    expect(result.code).toBe(1);
    expect(otherHost.requests).toEqual([]);
    expect(appRequests(appHost)).toEqual([]);
    expect(result.err).toContain(
      'error: login failed for dynamic[0] of dynamic.yaml: the login template app-login did not match',
    );
    expect(result.err).not.toMatch(/the login of .* failed/);
    expect(result.err).toContain('error: the logins of -ps failed; no scan request was sent');
    expect(result.out).toBe('');
  });

  it('does not run a login template found in a -t folder as a scan template', async () => {
    mkdirSync(ws.path('templates'), { recursive: true });
    ws.file('templates/login.yaml', LOGIN_TEMPLATE);
    ws.file('templates/pages.yaml', pathsTemplate('pages', ['{{BaseURL}}/a']));
    const result = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-u',
      otherHost.origin,
      '-t',
      'templates',
      '-sf',
      secretFile({ template: 'templates/login.yaml' }),
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(
      `[INF] not scanning with ${ws.path('templates/login.yaml')}: it is the login template of dynamic[0] of dynamic.yaml`,
    );
    expect(otherHost.requests.map((r) => r.path)).toEqual(['/a']);
    expect(loginRequests(appHost)).toHaveLength(2);
    expect(result.out.trim().split('\n')).toHaveLength(2);
  });

  it('with -ps, logs in an entry without input at the first target it applies to, before any scan request', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      otherHost.origin,
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile(),
      '-ps',
      '--no-store',
      '-c',
      '1',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.logins).toBe(1);
    expect(result.err).toContain(`[INF] logging in for dynamic[0] of dynamic.yaml at ${appHost.origin}\n`);
    // Logged in before the first target (127.0.0.2) was scanned.
    expect(result.err.indexOf('[INF] logged in')).toBeLessThan(result.err.indexOf('scan finished'));
    expect(otherHost.requests).toHaveLength(1);
  });

  it('with -ps, stops before any scan request when the login of an entry without input fails (exit 1)', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      otherHost.origin,
      '-u',
      appHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ password: 'wrong-password' }),
      '-ps',
      '--no-store',
      '-silent',
    ]);
    expect(result.code).toBe(1);
    expect(otherHost.requests).toEqual([]);
    expect(appRequests(appHost)).toEqual([]);
    expect(result.err).toContain(
      'error: login failed for dynamic[0] of dynamic.yaml: the login template app-login did not match',
    );
  });

  it('with -ps, does not log in an entry that applies to none of the targets, and says so', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const result = await ws.cli([
      'scan',
      '-u',
      otherHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ input: true }),
      '-ps',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(appHost.requests).toEqual([]);
    expect(result.err).toContain(
      `[WRN] dynamic[0] of dynamic.yaml (cookie for ${appHost.authority}) applies to none of the scan's targets; it is not logged in\n`,
    );
  });

  it('records a failed scan with the reason, the findings of other scopes, and the authentication figures', async () => {
    const template = ws.file('one-page.yaml', pathsTemplate('one-page', ['{{BaseURL}}/page']));
    const scan = await ws.cli([
      'scan',
      '-u',
      appHost.origin,
      '-u',
      otherHost.origin,
      '-t',
      template,
      '-sf',
      secretFile({ password: 'wrong-password' }),
      '--db',
      'auth.db',
    ]);
    expect(scan.code, scan.err).toBe(2);
    const listed = await ws.cli(['scans', 'list', '--json', '--db', 'auth.db']);
    expect(listed.code, listed.err).toBe(0);
    const [line] = listed.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(line).toMatchObject({
      status: 'failed',
      failure_reason: expect.stringMatching(
        /^authentication failed: dynamic\[0\] of dynamic\.yaml: the login template app-login did not match: .*; 1 request in its scope was not sent$/,
      ),
      severity: { info: 1 },
      authentication: {
        requests: 1,
        authenticated: 0,
        entries: [
          {
            entry: 'dynamic[0] of dynamic.yaml',
            kind: 'dynamic',
            scope: appHost.authority,
            requests: 0,
            refused: 1,
            logins: 1,
            login_failures: 1,
            relogins: 0,
          },
        ],
      },
    });
  });
});
