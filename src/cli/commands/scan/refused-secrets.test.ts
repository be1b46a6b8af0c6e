/**
 * A secret the target does not take is as loud as a login that failed: a wrong password, an
 * expired token or a forgotten session cookie gets 401s or redirects to the login page, and a scan
 * whose every answer said so fails, saying which entry and why, even with `-silent`. Real hosts on
 * loopback: an API taking one bearer token, and a web app taking one session cookie.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

const TOKEN = 'tok-6c1f2a';
const SESSION = 'sess-93be07';

let api: TestHost;
let app: TestHost;
let ws: Workspace;

/** The API: `/admin` is 401 for everyone (no token opens it); everything else takes the one token. */
function apiAnswer(request: SeenRequest) {
  if (request.path === '/admin') return { status: 401, body: 'admins only' };
  return request.headers.authorization === `Bearer ${TOKEN}`
    ? { body: 'ok' }
    : { status: 401, headers: { 'WWW-Authenticate': 'Bearer' }, body: 'who are you' };
}

/** The web app: without its session, every page sends the browser to `/users/sign_in`. */
function appAnswer(request: SeenRequest) {
  if (request.path === '/users/sign_in') return { body: '<form><input type="password" name="pw"></form>' };
  return request.cookies.sid === SESSION
    ? { body: 'ok' }
    : { status: 302, headers: { Location: `/users/sign_in?next=${encodeURIComponent(request.path)}` } };
}

beforeAll(async () => {
  api = await startHost('127.0.0.1', apiAnswer);
  app = await startHost('127.0.0.2', appAnswer);
  ws = new Workspace();
  ws.file('api.yaml', pathsTemplate('api', ['{{BaseURL}}/a', '{{BaseURL}}/b', '{{BaseURL}}/c']));
  ws.file('pages.yaml', pathsTemplate('pages', ['{{BaseURL}}/a', '{{BaseURL}}/b']));
  ws.file(
    'many.yaml',
    pathsTemplate(
      'many',
      Array.from({ length: 12 }, (_, i) => `{{BaseURL}}/item/${i}`),
    ),
  );
});

afterAll(async () => {
  await Promise.all([api.close(), app.close()]);
  ws.remove();
});

/** `keyhole scan -u HOST -t TEMPLATE FLAGS…` in the workspace. */
function scan(target: TestHost, template: string, ...flags: string[]) {
  return ws.cli(['scan', '-u', target.origin, '-t', template, ...flags]);
}

function bearer(token: string): string {
  return ws.file(
    token === TOKEN ? 'right-token.yaml' : 'old-token.yaml',
    `static:\n  - type: bearertoken\n    domains: ["${api.authority}"]\n    token: ${token}\n`,
  );
}

function cookie(value: string): string {
  return ws.file(
    value === SESSION ? 'live-cookie.yaml' : 'stale-cookie.yaml',
    `static:\n  - type: cookie\n    domains: ["${app.authority}"]\n    cookies: [{key: sid, value: ${value}}]\n`,
  );
}

describe('a static secret the target refuses', () => {
  it('fails the scan with -silent, naming the entry and the 401s, and never shows the secret', async () => {
    const result = await scan(api, 'api.yaml', '-sf', bearer('expired-0000'), '--no-store', '-silent');
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toBe(
      'error: authentication failed: static[0] of old-token.yaml: the target refused its secret on all 3 requests that carried it (401 Unauthorized): the secret is probably wrong or expired, or not the kind this target takes\n',
    );
    expect(result.err).not.toContain('expired-0000');
  });

  it('shows in the summary that none of its requests was authenticated', async () => {
    const result = await scan(api, 'api.yaml', '-sf', bearer('expired-0000'), '--no-store');
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      '  authenticated  0 of 3 requests (3 more carried a secret the target refused)\n',
    );
    expect(result.err).toMatch(
      /static\[0\] of old-token\.yaml {2}3 requests, 3 refused by the target \(401\)\n/,
    );
  });

  it('fails a scan whose session cookie the app sends to its login page', async () => {
    const result = await scan(app, 'pages.yaml', '-sf', cookie('forgotten'), '--no-store', '-silent');
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'authentication failed: static[0] of stale-cookie.yaml: the target refused its secret on all 2 requests that carried it (redirected to a login page)',
    );
  });

  it('says so while a long scan goes on, once, after the first ten refusals', async () => {
    const result = await scan(
      api,
      'many.yaml',
      '-sf',
      bearer('expired-0000'),
      '--no-store',
      '-silent',
      '-c',
      '1',
    );
    expect(result.code).toBe(2);
    const lines = result.err.trim().split('\n');
    expect(lines).toEqual([
      '[ERR] static[0] of old-token.yaml: the target refused its secret on each of the first 10 requests that carried it (401 Unauthorized); the scan goes on, and fails at its end if every answer refuses it',
      expect.stringMatching(
        /^error: authentication failed: static\[0\] of old-token\.yaml: the target refused its secret on all 12 requests/,
      ),
    ]);
  });

  it('is recorded in the store: the scan failed, with why, and the refusals counted per entry', async () => {
    const store = ws.path('refused.db');
    const result = await scan(api, 'api.yaml', '-sf', bearer('expired-0000'), '--db', store, '-silent');
    expect(result.code).toBe(2);
    const listed = await ws.cli(['scans', 'list', '--db', store, '--json']);
    expect(listed.code, listed.err).toBe(0);
    const [stored] = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(stored.status).toBe('failed');
    expect(stored.failure_reason).toContain('the target refused its secret on all 3 requests');
    expect(stored.authentication.entries).toEqual([expect.objectContaining({ requests: 3, rejected: 3 })]);
    const db = new Database(store, { readonly: true });
    try {
      expect(JSON.stringify(db.prepare('select * from scan_auth').all())).not.toContain('expired-0000');
    } finally {
      db.close();
    }
  });
});

describe('a secret the target takes', () => {
  it('passes, with its requests authenticated', async () => {
    const result = await scan(api, 'api.yaml', '-sf', bearer(TOKEN), '--no-store');
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain('  authenticated  3 of 3 requests\n');
    expect(result.err).not.toContain('refused');
  });

  it('passes when only some paths are closed to it, and counts those', async () => {
    ws.file('admin.yaml', pathsTemplate('admin', ['{{BaseURL}}/a', '{{BaseURL}}/admin']));
    const result = await scan(api, 'admin.yaml', '-sf', bearer(TOKEN), '--no-store');
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(
      '  authenticated  1 of 2 requests (1 more carried a secret the target refused)\n',
    );
    expect(result.err).toMatch(
      /static\[0\] of right-token\.yaml {2}2 requests, 1 refused by the target \(401\)\n/,
    );
  });

  it('passes when a login page redirects to itself: a template at work, not a refused secret', async () => {
    ws.file('sign-in.yaml', pathsTemplate('sign-in', ['{{BaseURL}}/users/sign_in/retry']));
    const result = await scan(app, 'sign-in.yaml', '-sf', cookie('forgotten'), '--no-store', '-silent');
    expect(result.code, result.err).toBe(0);
  });
});

describe('a credential given with -H', () => {
  it('fails the scan, even with -silent, when the target turns it away on every answer', async () => {
    const result = await scan(
      api,
      'api.yaml',
      '-H',
      'Authorization: Bearer old-4d2e',
      '--no-store',
      '-silent',
    );
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      'error: authentication failed: -H Authorization: the target refused it on all 3 requests that carried it (401 Unauthorized): the credential is probably wrong or expired\n',
    );
  });

  it('says so while a long scan goes on, once, after the first ten refusals', async () => {
    const result = await scan(
      api,
      'many.yaml',
      '-H',
      'Authorization: Bearer old-4d2e',
      '--no-store',
      '-silent',
      '-c',
      '1',
    );
    expect(result.code).toBe(2);
    expect(result.err.trim().split('\n')[0]).toBe(
      '[ERR] -H Authorization: the target refused it on each of the first 10 requests that carried it (401 Unauthorized); the scan goes on, and fails at its end if every answer refuses it',
    );
  });

  it('passes when the target takes it, and the summary says how many requests carried it', async () => {
    const result = await scan(api, 'api.yaml', '-H', `Authorization: Bearer ${TOKEN}`, '--no-store');
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain('  credentials    -H Authorization on 3 requests\n');
    expect(result.err).not.toContain(TOKEN);
  });

  it('is not judged where a secret file replaced it, nor is a header that is no credential', async () => {
    const replaced = await scan(
      api,
      'api.yaml',
      '-H',
      'Authorization: Bearer old-4d2e',
      '-sf',
      bearer(TOKEN),
      '--no-store',
    );
    expect(replaced.code, replaced.err).toBe(0);
    expect(replaced.err).not.toContain('credentials');
    const plain = await scan(api, 'api.yaml', '-H', 'X-Trace: 1', '--no-store', '-silent');
    expect(plain).toMatchObject({ code: 0, err: '' });
  });
});
