/**
 * Browser logins in Debian's Chromium: a single-page app whose form is built by JavaScript, with a
 * one-time-code step and its token in localStorage; an SSO redirect to an identity provider named in
 * `allow:`; and a browser kept to the login's scope, whatever the page tries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing } from '../dashboard/testing/chromium.js';
import { HttpClient, type HttpRequest, type ProxyServer, parseProxy } from '../http/index.js';
import { connectProxy } from '../http/testing/proxies.js';
import { loadSecretFiles, SecretResolver, type SecretSet } from '../secretfile/index.js';
import { folderWith } from '../secretfile/testing/fixtures.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { TemplateLoginRunner } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { SPA_PASSWORD, SPA_TOTP_SECRET, SPA_USER, type SpaApp, spaApp } from './testing/spa.js';

const missing = chromiumMissing();
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);
const runner = new TemplateLoginRunner({ dispatch, timeoutMs: 5000 });

/** A host outside every login's scope, counting what reaches it. */
let elsewhere: FixtureServer;
let spa: SpaApp;
/** The same app, whose page also hands its token to `elsewhere` after login. */
let tracked: SpaApp;
let idp: FixtureServer;
let sso: FixtureServer;

beforeAll(async () => {
  elsewhere = await fixtureServer([{ path: /.*/, respond: { body: 'collected' } }]);
  spa = await spaApp();
  tracked = await spaApp({ beacon: elsewhere.url });
  idp = await fixtureServer([
    {
      method: 'GET',
      path: '/authorize',
      respond: (r) => ({
        headers: { 'Content-Type': 'text/html' },
        body: `<form method="post" action="/login?back=${encodeURIComponent(r.query.get('back') ?? '')}">
          <input name="user"><input type="password" name="pass"><button>Sign in</button></form>`,
      }),
    },
    {
      method: 'POST',
      path: '/login',
      respond: (r) => {
        const form = new URLSearchParams(r.body);
        if (form.get('user') !== 'bob' || form.get('pass') !== 'idp-pass')
          return { body: '<p>wrong</p><form><input type="password" name="pass"></form>' };
        return { status: 302, headers: { Location: `${r.query.get('back')}?code=c0de-77` } };
      },
    },
  ]);
  sso = await fixtureServer([
    {
      path: '/',
      respond: () => ({
        status: 302,
        headers: { Location: `${idp.url}/authorize?back=${encodeURIComponent(`${sso.url}/callback`)}` },
      }),
    },
    {
      path: '/callback',
      respond: (r) =>
        r.query.get('code') === 'c0de-77'
          ? {
              status: 302,
              headers: { Location: '/home', 'Set-Cookie': 'sid=sso-session-42; Path=/; HttpOnly' },
            }
          : { status: 400, body: 'bad code' },
    },
    { path: '/home', respond: (r) => ({ body: `home of ${r.cookies.sid ?? 'nobody'}` }) },
    {
      method: 'POST',
      path: '/leaky',
      respond: () => ({ status: 302, headers: { Location: `${elsewhere.url}/steal?sid=x` } }),
    },
    {
      method: 'GET',
      path: '/leaky',
      respond: {
        headers: { 'Content-Type': 'text/html' },
        body: '<form method="post"><input name="user"><input type="password" name="pass"><button>Go</button></form>',
      },
    },
  ]);
});

afterAll(async () => {
  await Promise.all([
    elsewhere.close(),
    spa.close(),
    tracked.close(),
    idp.close(),
    sso.close(),
    client.close(),
  ]);
});

async function secrets(entry: string, env: Record<string, string> = {}): Promise<SecretSet> {
  const dir = await folderWith({ 's.yaml': `dynamic:\n${entry}` });
  const loaded = await loadSecretFiles(['s.yaml'], { cwd: dir, env });
  if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.secrets;
}

const spaEntry = (password = '{env: PW}', app: SpaApp = spa) => `  - login:
      url: ${app.url}/
      browser: true
      username: ${SPA_USER}
      password: ${password}
      totp: {totp: {env: TOTP}}
    type: bearertoken
    token: "{{local.access_token}}"
    domains: ["127.0.0.1:${app.port}"]
`;

const spaEnv = { PW: SPA_PASSWORD, TOTP: SPA_TOTP_SECRET };

const get = (server: FixtureServer, target: string): HttpRequest => ({
  method: 'GET',
  scheme: 'http',
  hostname: '127.0.0.1',
  port: server.port,
  target,
  headers: [],
  body: '',
});

async function send(resolver: SecretResolver, request: HttpRequest): Promise<string> {
  const sent = await chain(dispatch, [withSecrets(resolver)])(request, {});
  return `${sent.response.statusCode} ${sent.response.body.toString('utf8')}`;
}

describe.skipIf(missing !== undefined)('browser logins', () => {
  it('log into a single-page app through its JavaScript form and one-time-code step, and send its localStorage token', async () => {
    const resolver = new SecretResolver(await secrets(spaEntry(), spaEnv), { runner });
    expect(await send(resolver, get(spa, '/api/me'))).toBe(`200 {"user":"${SPA_USER}","admin":true}`);
    const token = spa.tokens.at(-1) ?? '';
    expect(spa.requests.filter((r) => r.path === '/api/me').at(-1)?.headers.authorization).toBe(
      `Bearer ${token}`,
    );
    expect(resolver.redactor.redact(`token ${token}`)).toBe('token [REDACTED]');
    // sessionStorage's tab: dashboard is no credential: it is not masked in every finding.
    expect(resolver.redactor.redact('tab dashboard')).toBe('tab dashboard');
  }, 60_000);

  it('send each request of the page only once -rl gives it its turn', async () => {
    // An app of its own: the others' logins used this half-minute's one-time code, which an app
    // takes once.
    const app = await spaApp();
    const turns: (() => void)[] = [];
    const paced = new TemplateLoginRunner({
      dispatch,
      timeoutMs: 5000,
      pace: () => new Promise<void>((go) => turns.push(go)),
    });
    try {
      const resolver = new SecretResolver(await secrets(spaEntry('{env: PW}', app), spaEnv), {
        runner: paced,
      });
      const fromBrowser = () =>
        app.requests.filter((r) => /Chrome/.test(r.headers['user-agent'] ?? '')).length;
      let done = false;
      const answer = send(resolver, get(app, '/api/me')).finally(() => {
        done = true;
      });
      // Awaited below; a failed check in the loop must not leave it unhandled.
      answer.catch(() => undefined);
      let given = 0;
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        // What reached the app never outnumbers the turns given.
        expect(fromBrowser()).toBeLessThanOrEqual(given);
        const next = turns.shift();
        if (next !== undefined) {
          given++;
          next();
        }
      }
      expect(await answer).toMatch(/^200 /);
      // The shell, the login, the code and the page's own /api/me.
      expect(fromBrowser()).toBeGreaterThanOrEqual(4);
      expect(fromBrowser()).toBeLessThanOrEqual(given);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('keep every request the page makes to another host from leaving the browser, the token with it', async () => {
    const before = elsewhere.requests.length;
    const resolver = new SecretResolver(await secrets(spaEntry('{env: PW}', tracked), spaEnv), { runner });
    expect(await send(resolver, get(tracked, '/api/me'))).toMatch(/^200 /);
    expect(tracked.tokens).toHaveLength(1);
    // The page sent a beacon, a fetch and an image to the tracker with the token: none arrived.
    expect(elsewhere.requests.slice(before)).toEqual([]);
  }, 60_000);

  it('fail saying the form came back when the password is wrong', async () => {
    const resolver = new SecretResolver(await secrets(spaEntry('wrong-one'), spaEnv), { runner });
    const applied = await resolver.apply(get(spa, '/api/me'));
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /the login form was shown again after submitting, at http:\/\/127\.0\.0\.1:\d+\/ \(status 200\): the username or password is probably wrong/,
    );
  }, 60_000);

  const ssoEntry = (allow: string) => `  - login:
      url: ${sso.url}/
      browser: true
      username: bob
      password: idp-pass
${allow}    type: cookie
    cookies: [{key: sid, value: "{{cookie.sid}}"}]
    domains: ["127.0.0.1:${sso.port}"]
`;

  it('follow an SSO redirect to the identity provider named in allow:, and back', async () => {
    const resolver = new SecretResolver(await secrets(ssoEntry(`      allow: ["127.0.0.1:${idp.port}"]\n`)), {
      runner,
    });
    expect(await send(resolver, get(sso, '/home'))).toBe('200 home of sso-session-42');
  }, 60_000);

  it('log in once for requests that come together, and again in a new browser when the session is lost', async () => {
    const withReauth = `      allow: ["127.0.0.1:${idp.port}"]\n    reauth: {status: [401], max: 2}\n`;
    const resolver = new SecretResolver(await secrets(ssoEntry(withReauth)), { runner });
    const logins = () => idp.requests.filter((r) => r.path === '/login').length;
    const before = logins();
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(resolver, get(sso, '/home'))));
    expect(new Set(answers)).toEqual(new Set(['200 home of sso-session-42']));
    expect(logins() - before).toBe(1);
    const entry = resolver.choose(get(sso, '/home'));
    expect(entry?.kind === 'dynamic' && (await resolver.relogin(entry))).toEqual({ ok: true });
    expect(logins() - before).toBe(2);
  }, 90_000);

  it('go through -proxy, the app and its identity provider both', async () => {
    const proxy = await connectProxy();
    try {
      const resolver = new SecretResolver(
        await secrets(ssoEntry(`      allow: ["127.0.0.1:${idp.port}"]\n`)),
        {
          runner: new TemplateLoginRunner({
            dispatch,
            timeoutMs: 5000,
            proxy: parseProxy(`http://127.0.0.1:${proxy.port}`) as ProxyServer,
          }),
        },
      );
      expect(await send(resolver, get(sso, '/home'))).toBe('200 home of sso-session-42');
      expect(new Set(proxy.tunnels)).toEqual(new Set([`127.0.0.1:${sso.port}`, `127.0.0.1:${idp.port}`]));
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('fail loudly when the page goes to a host outside the scope, sending nothing there', async () => {
    const before = idp.requests.length;
    const resolver = new SecretResolver(await secrets(ssoEntry('')), { runner });
    const applied = await resolver.apply(get(sso, '/home'));
    expect(applied.kind === 'error' && applied.reason).toContain(
      `the login page went to 127.0.0.1:${idp.port}, outside the scope of dynamic[0] and the hosts it logs in at; the browser was kept from going there`,
    );
    // Without allow:, the identity provider never heard of the login.
    expect(idp.requests.slice(before)).toEqual([]);
  }, 60_000);

  it('never follow a redirect out of the scope after the form is sent: the redirect is refused, the login fails', async () => {
    const before = elsewhere.requests.length;
    const resolver = new SecretResolver(
      await secrets(`  - login:
      url: ${sso.url}/leaky
      browser: true
      username: bob
      password: idp-pass
    type: cookie
    domains: ["127.0.0.1:${sso.port}"]
`),
      { runner },
    );
    const applied = await resolver.apply(get(sso, '/home'));
    expect(applied.kind === 'error' && applied.reason).toContain(
      `the login page went to 127.0.0.1:${elsewhere.port}, outside the scope of dynamic[0]`,
    );
    expect(elsewhere.requests.slice(before)).toEqual([]);
  }, 60_000);
});

describe('a browser login without Chromium', () => {
  it('fails naming the Debian package to install', async () => {
    const resolver = new SecretResolver(await secrets(spaEntry(), spaEnv), {
      runner: new TemplateLoginRunner({ dispatch, chromium: '/nonexistent/chromium' }),
    });
    const applied = await resolver.apply(get(spa, '/api/me'));
    expect(applied.kind === 'error' && applied.reason).toBe(
      `the login of dynamic[0] of s.yaml failed: a browser login needs Chromium, and there is none at /nonexistent/chromium: install Debian's chromium package (apt-get install chromium), or set KEYHOLE_CHROMIUM to the path of a Chromium`,
    );
  });
});
