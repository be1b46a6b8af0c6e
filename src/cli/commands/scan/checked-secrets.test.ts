/**
 * A static secret with `verify:` through `keyhole scan`: its check runs once before the first
 * request that would carry it (or before the scan with -ps), and a secret that fails it is as loud
 * as a failed login: nothing in its scope is sent, the scan fails (exit 2), said even with -silent.
 * The app answers a stale session with a 200 "please sign in" page at the same URL, which no status
 * code gives away: only the check does. Real hosts on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

const SESSION = 'sess-4d2f81c0';
const STALE = 'sess-0ld5e55';
const TOKEN = 'tok-a1b2c3d4';

let app: TestHost;
let other: TestHost;
let ws: Workspace;
let checkDelayMs = 0;
/** Every request to either host, in the order they came: `app/me`, `other/a`. */
const arrivals: string[] = [];

/** Every page is a 200: the session's page, or a sign-in page for anyone else; `/account` redirects. */
function appAnswer(request: SeenRequest) {
  arrivals.push(`app${request.path}`);
  const live = request.cookies.sid === SESSION;
  if (request.path === '/me')
    return {
      body: live
        ? 'Signed in as alice. Sign out'
        : '<h1>Please sign in</h1><form><input type="password"></form>',
      delayMs: checkDelayMs,
    };
  if (request.path === '/account' && !live) return { status: 302, headers: { Location: '/me' } };
  return { body: live ? 'ok: alice' : 'ok: welcome, guest' };
}

beforeAll(async () => {
  app = await startHost('127.0.0.1', appAnswer);
  other = await startHost('127.0.0.2', (request) => {
    arrivals.push(`other${request.path}`);
    return request.path === '/me' && request.cookies.sid === SESSION
      ? { body: 'Sign out' }
      : { body: 'ok from elsewhere' };
  });
  ws = new Workspace();
  ws.file('pages.yaml', pathsTemplate('pages', ['{{BaseURL}}/a', '{{BaseURL}}/b', '{{BaseURL}}/c']));
});

afterAll(async () => {
  await Promise.all([app.close(), other.close()]);
  ws.remove();
});

afterEach(() => {
  checkDelayMs = 0;
  arrivals.length = 0;
  app.requests.length = 0;
  other.requests.length = 0;
});

function checked(value: string, verify = `{url: "${appUrl('/me')}", regex: "Sign out"}`): string {
  return ws.file(
    'checked.yaml',
    `static:\n  - type: cookie\n    domains: ["${app.authority}"]\n    cookies: [{key: sid, value: ${value}}]\n    verify: ${verify}\n`,
  );
}

function appUrl(path: string): string {
  return `${app.origin}${path}`;
}

const checks = () => app.requests.filter((r) => r.path === '/me');
const pages = () => app.requests.filter((r) => r.path !== '/me');

describe('a static secret with verify:', () => {
  it('is checked once before its first request, and the scan runs with it', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(SESSION),
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(app.requests[0]?.path).toBe('/me');
    expect(checks()).toHaveLength(1);
    expect(pages().map((r) => r.cookies.sid)).toEqual([SESSION, SESSION, SESSION]);
    expect(result.err).toContain(
      `[INF] checking the secret of static[0] of checked.yaml at ${appUrl('/me')}`,
    );
    expect(result.err).toContain('[INF] the secret of static[0] of checked.yaml passed its check');
    expect(`${result.out}${result.err}`).not.toContain(SESSION);
  });

  it('runs one check for 50 concurrent requests in its scope, all of them waiting for it', async () => {
    checkDelayMs = 200;
    const fifty = ws.file(
      'fifty.yaml',
      pathsTemplate(
        'fifty',
        ['{{BaseURL}}/item/{{n}}'],
        `    threads: 50\n    payloads:\n      n: [${Array.from({ length: 50 }, (_, i) => i + 1).join(', ')}]\n`,
      ),
    );
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-t',
      fifty,
      '-sf',
      checked(SESSION),
      '--no-store',
      '-rl',
      '0',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(checks()).toHaveLength(1);
    expect(pages()).toHaveLength(50);
    expect(new Set(pages().map((r) => r.cookies.sid))).toEqual(new Set([SESSION]));
    expect(result.out.trim().split('\n')).toHaveLength(50);
  });

  it('fails the scan when the app answers the check with its sign-in page: said with -silent, nothing in scope sent, the rest scanned (exit 2)', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-u',
      other.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(STALE),
      '--no-store',
      '-silent',
    ]);
    expect(result.code, result.err).toBe(2);
    // The check alone reached the app: no request went with a secret known bad, nor without it.
    expect(app.requests.map((r) => r.path)).toEqual(['/me']);
    const why = `the secret check ${appUrl('/me')} failed: it does not match /Sign out/`;
    expect(result.err).toBe(
      `[ERR] static[0] of checked.yaml: ${why}; requests in its scope are not sent\n` +
        `error: authentication failed: static[0] of checked.yaml: ${why}; 3 requests in its scope were not sent\n`,
    );
    expect(other.requests.map((r) => r.path)).toEqual(['/a', '/b', '/c']);
    expect(result.out.trim().split('\n')).toEqual([
      `[pages] [http] [info] ${other.origin}/a`,
      `[pages] [http] [info] ${other.origin}/b`,
      `[pages] [http] [info] ${other.origin}/c`,
    ]);
    expect(`${result.out}${result.err}`).not.toContain(STALE);
  });

  it('fails on a status other than the one asked for, and sums up the requests not sent', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(STALE, `{url: "${appUrl('/account')}"}`),
      '--no-store',
      '-c',
      '1',
    ]);
    expect(result.code, result.err).toBe(2);
    expect(app.requests.map((r) => r.path)).toEqual(['/account']);
    expect(result.err).toContain(
      `[ERR] static[0] of checked.yaml: the secret check ${appUrl('/account')} failed: its status is 302, not 200; requests in its scope are not sent\n`,
    );
    expect(result.err.match(/not sent: /g)).toHaveLength(1);
    expect(result.err).toContain('  authenticated  0 of 0 requests\n');
    expect(result.err).toContain('    static[0] of checked.yaml  0 requests, 3 not sent\n');
    expect(result.err).toMatch(/errors +4\n/);
    expect(`${result.out}${result.err}`).not.toContain(STALE);
  });

  it("sends the check with that entry's secret alone: not the -H headers, not the entry its host otherwise gets", async () => {
    // The check goes to the other host, in the entry's scope, whose own requests get the bearer token.
    const file = ws.file(
      'two.yaml',
      `static:
  - type: bearertoken
    domains: ["${other.authority}"]
    token: ${TOKEN}
  - type: cookie
    domains: ["${app.authority}", "${other.authority}"]
    cookies: [{key: sid, value: ${SESSION}}]
    verify: {url: "${other.origin}/me", regex: "Sign out"}
`,
    );
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-u',
      other.origin,
      '-t',
      'pages.yaml',
      '-sf',
      file,
      '-H',
      'X-Scan: 1',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const otherChecks = other.requests.filter((r) => r.path === '/me');
    expect(otherChecks).toHaveLength(1);
    expect(otherChecks[0]?.cookies).toEqual({ sid: SESSION });
    expect(otherChecks[0]?.headers.authorization).toBeUndefined();
    expect(otherChecks[0]?.headers['x-scan']).toBeUndefined();
    // The scan's requests get their own host's entry, and -H, as ever.
    const scanned = other.requests.filter((r) => r.path !== '/me');
    expect(scanned.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${TOKEN}`));
    expect(pages().map((r) => [r.cookies.sid, r.headers['x-scan']])).toEqual(Array(3).fill([SESSION, '1']));
    expect(`${result.out}${result.err}`).not.toContain(TOKEN);
    expect(`${result.out}${result.err}`).not.toContain(SESSION);
  });

  it('with -ps, is checked before the first scan request, whatever the order of the targets', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      other.origin,
      '-u',
      app.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(SESSION),
      '-ps',
      '--no-store',
      '-c',
      '1',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(arrivals[0]).toBe('app/me');
    expect(arrivals.filter((a) => a === 'app/me')).toHaveLength(1);
    expect(arrivals).toHaveLength(7);
    expect(result.err.indexOf('passed its check')).toBeLessThan(result.err.indexOf('scan finished'));
    expect(result.err.indexOf('passed its check')).toBeGreaterThan(-1);
  });

  it('with -ps, stops before any scan request when the check fails (exit 1)', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      other.origin,
      '-u',
      app.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(STALE),
      '-ps',
      '--no-store',
      '-silent',
    ]);
    expect(result.code).toBe(1);
    expect(other.requests).toEqual([]);
    expect(app.requests.map((r) => r.path)).toEqual(['/me']);
    expect(result.err).toBe(
      `error: static[0] of checked.yaml: the secret check ${appUrl('/me')} failed: it does not match /Sign out/\n` +
        'error: the secret checks of -ps failed; no scan request was sent\n',
    );
  });

  it("is refused before any request when its URL is outside the entry's scope, with where", async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      app.origin,
      '-t',
      'pages.yaml',
      '-sf',
      checked(SESSION, `{url: "${other.origin}/me"}`),
      '--no-store',
    ]);
    expect(result.code).toBe(1);
    expect(app.requests).toEqual([]);
    expect(other.requests).toEqual([]);
    expect(result.err).toContain(
      `error: checked.yaml:5:19: static[0].verify.url: ${other.authority} is outside the scope of this entry (${app.authority}): the check is sent with the secret, so it may only go where the secret goes; give a URL on a host the entry applies to\n`,
    );
  });
});
