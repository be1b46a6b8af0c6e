/**
 * Retests of findings behind a dynamic login: the secret file's login runs once for all of them,
 * a failed login is an error (never "fixed"), and a retest without the secret file is warned about.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { sqliteTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';

/** A form login handing out `session=s<n>-…`; `/private/*` answers only to a live session. */
const app = { logins: 0, sessions: new Set<string>() };

function answer(request: SeenRequest) {
  if (request.path === '/login') {
    const form = new URLSearchParams(request.body);
    if (form.get('username') !== 'admin' || form.get('password') !== 'hunter2')
      return { status: 401, body: 'wrong credentials' };
    app.logins++;
    const session = `s${app.logins}-5e55`;
    app.sessions.add(session);
    return { status: 302, headers: { Location: '/', 'Set-Cookie': `session=${session}; Path=/` } };
  }
  if (!app.sessions.has(request.cookies.session ?? '')) return { status: 401, body: 'log in first' };
  return { body: `ok: private data for ${request.cookies.session}` };
}

const LOGIN_TEMPLATE = `id: app-login
info: {name: App login, author: keyhole, severity: info}
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        username={{username}}&password={{password}}
    matchers:
      - type: status
        status: [302]
    extractors:
      - type: regex
        name: session
        internal: true
        part: header
        group: 1
        regex: ['Set-Cookie: (session=[^;]+)']
`;

let appHost: TestHost;
let ws: Workspace;
let db: TestDatabase;
let store: Store;

function secretFile(name: string, password: string): string {
  return ws.file(
    name,
    `dynamic:
  - template: login.yaml
    variables:
      - {name: username, value: admin}
      - {name: password, value: ${password}}
    type: cookie
    domains: ["${appHost.authority}"]
    cookies:
      - raw: "{{session}}"
`,
  );
}

const keyhole = (...argv: string[]) =>
  ws.cli([...argv, '--db', db.location.engine === 'sqlite' ? db.location.path : db.location.url]);
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

let scanId = '';

beforeAll(async () => {
  appHost = await startHost('127.0.0.1', answer);
  ws = new Workspace();
  ws.file('login.yaml', LOGIN_TEMPLATE);
  ws.file('orders.yaml', pathsTemplate('private-orders', ['{{BaseURL}}/private/orders']));
  ws.file('users.yaml', pathsTemplate('private-users', ['{{BaseURL}}/private/users']));
  secretFile('login.secrets.yaml', 'hunter2');
  secretFile('wrong.secrets.yaml', 'letmein');
  db = await sqliteTestDatabase();
  store = await openStore(db.location);
  const scan = await keyhole(
    'scan',
    '-u',
    appHost.origin,
    '-t',
    'orders.yaml',
    '-t',
    'users.yaml',
    '-sf',
    'login.secrets.yaml',
  );
  expect(scan.code, scan.err).toBe(0);
  scanId = /recorded +scan ([a-z0-9]{20})/.exec(scan.err)?.[1] ?? '';
  forgetLogins();
});

afterAll(async () => {
  await appHost.close();
  await store.close();
  await db.drop();
  ws.remove();
});

afterEach(forgetLogins);

function forgetLogins(): void {
  app.logins = 0;
  app.sessions.clear();
  appHost.requests.length = 0;
}

describe('retesting findings behind a dynamic login', () => {
  it('reproduces them with -sf, logging in once for all of them', async () => {
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'login.secrets.yaml');
    expect(result.code, result.err).toBe(0);
    expect(
      lines(result.out)
        .map((l) => l.replace(/^\[[a-z0-9]{20}\] /, ''))
        .sort(),
    ).toEqual([`private-orders ${appHost.origin} → matched`, `private-users ${appHost.origin} → matched`]);
    expect(app.logins).toBe(1);
    expect(appHost.requests.map((r) => r.path).sort()).toEqual([
      '/login',
      '/private/orders',
      '/private/users',
    ]);
    expect(result.err).toContain('logged in for dynamic[0] of login.secrets.yaml');
    // The session captured by the login is a secret: recorded as [REDACTED].
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const [retest] = await store.retests.ofFinding(findings[0]?.id ?? '');
    expect(JSON.stringify(retest?.events)).toContain('Cookie: [REDACTED]');
    expect(JSON.stringify(retest?.events)).not.toContain('s1-5e55');
  });

  it('logs in before any retest request with -ps', async () => {
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'login.secrets.yaml', '-ps', '-c', '1');
    expect(result.code, result.err).toBe(0);
    expect(appHost.requests[0]?.path).toBe('/login');
    expect(app.logins).toBe(1);
  });

  it('records an error and keeps the status when the login fails, sending nothing unauthenticated', async () => {
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const before = await Promise.all(findings.map(async (f) => (await store.findings.get(f.id))?.vulnStatus));
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'wrong.secrets.yaml');
    expect(result.code).toBe(2);
    for (const line of lines(result.out)) {
      expect(line).toMatch(/ → error: http:\/\/127\.0\.0\.1:\d+\/private\/(orders|users): not sent: /);
    }
    expect(appHost.requests.map((r) => r.path)).toEqual(['/login']);
    const after = await Promise.all(findings.map(async (f) => (await store.findings.get(f.id))?.vulnStatus));
    expect(after).toEqual(before);
  });

  it('records an error, never fixed, when the target turns away the secret: a session cookie it no longer knows', async () => {
    ws.file(
      'stale.secrets.yaml',
      `static:\n  - type: cookie\n    domains: ["${appHost.authority}"]\n    cookies: [{key: session, value: s9-expired}]\n`,
    );
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const before = await Promise.all(findings.map(async (f) => (await store.findings.get(f.id))?.vulnStatus));
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'stale.secrets.yaml');
    expect(result.code).toBe(2);
    expect(lines(result.out)).toHaveLength(2);
    for (const line of lines(result.out)) {
      expect(line).toMatch(
        / → error: the target turned away the secret of static\[0\] of stale\.secrets\.yaml \(a request answered 401 Unauthorized\): .*whether it is fixed cannot be told/,
      );
    }
    const after = await Promise.all(findings.map(async (f) => (await store.findings.get(f.id))?.vulnStatus));
    expect(after).toEqual(before);
  });

  it('refuses to retest findings found with a secret without -sf (exit 1, nothing sent or recorded)', async () => {
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const recorded = (await store.retests.ofFinding(findings[0]?.id ?? '')).length;
    const result = await keyhole('retest', '--scan', scanId);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: 'error: 2 of the findings were found with a secret (their requests show [REDACTED]): give the secret files with -sf, or a finding behind a login would be recorded as fixed\n',
    });
    const one = await keyhole('retest', findings[0]?.id ?? '');
    expect(one.err).toBe(
      `error: finding ${findings[0]?.id} was found with a secret (its request shows [REDACTED]): give the secret files with -sf, or a finding behind a login would be recorded as fixed\n`,
    );
    expect(appHost.requests).toEqual([]);
    expect(await store.retests.ofFinding(findings[0]?.id ?? '')).toHaveLength(recorded);
  });
});
