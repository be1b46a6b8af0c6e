import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpRequest } from '../http/index.js';
import { loadSecretFiles, SecretResolver, type SecretSet } from '../secretfile/index.js';
import { folderWith } from '../secretfile/testing/fixtures.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { TemplateLoginRunner } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';

let app: FixtureServer;
let elsewhere: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);
const runner = new TemplateLoginRunner({ dispatch });
let sessions = 0;
/** Sessions the app has ended: its /whoami check fails for them. */
const revoked = new Set<string>();

const loginPage = (action = '/login') => `<html><body>
<form id="search" action="/search"><input name="q"></form>
<form id="signin" method="post" action="${action}">
  <input type="hidden" name="csrf" value="tok-42">
  <label>Email <input type="email" id="user_login" name="log" autocomplete="username"></label>
  <input type="password" name="pwd">
  <input type="checkbox" name="remember" value="yes">
  <input type="submit" name="wp-submit" value="Log In">
</form></body></html>`;

beforeAll(async () => {
  elsewhere = await fixtureServer([{ path: /.*/, respond: { body: 'collected' } }]);
  app = await fixtureServer([
    {
      method: 'GET',
      path: '/login',
      respond: { headers: { 'Set-Cookie': 'test=1; Path=/' }, body: loginPage() },
    },
    { method: 'GET', path: '/offsite', respond: () => ({ body: loginPage(`${elsewhere.url}/collect`) }) },
    { method: 'GET', path: '/nothing', respond: { body: '<form action="/s"><input name="q"></form>' } },
    {
      method: 'POST',
      path: '/login',
      respond: (r) => {
        const form = new URLSearchParams(r.body);
        if (form.get('csrf') !== 'tok-42' || r.cookies.test !== '1')
          return { status: 403, body: 'Invalid CSRF token' };
        if (form.get('log') !== 'alice@example.com' || form.get('pwd') !== 's3cret')
          return { status: 200, body: `<p>wrong password</p>${loginPage()}` };
        if (form.get('wp-submit') !== 'Log In' || form.has('remember') || form.has('q'))
          return { status: 400, body: 'unexpected fields' };
        sessions++;
        return {
          status: 302,
          headers: {
            Location: '/dashboard',
            'Set-Cookie': [`sid=s${sessions}; Path=/; HttpOnly`, 'pref=dark; Path=/'],
          },
        };
      },
    },
    {
      path: '/whoami',
      respond: (r) =>
        revoked.has(r.cookies.sid ?? '') ? { status: 401, body: 'who?' } : { body: 'signed in' },
    },
    { path: '/dashboard', respond: (r) => ({ body: `welcome, session ${r.cookies.sid}` }) },
    {
      method: 'POST',
      path: '/api/login',
      respond: (r) => {
        const body = JSON.parse(r.body) as { user: string; pass: string };
        if (body.user !== 'alice@example.com' || body.pass !== 's3"cret')
          return { status: 401, body: '{"error":"bad"}' };
        return {
          headers: { 'Content-Type': 'application/json' },
          body: '{"data":{"token":"jwt-777"},"role":"admin"}',
        };
      },
    },
    {
      path: '/account',
      respond: (r) =>
        r.cookies.sid?.startsWith('s') === true || r.headers.authorization === 'Bearer jwt-777'
          ? { body: `account; pref=${r.cookies.pref}` }
          : { status: 401, body: 'log in' },
    },
  ]);
});

afterAll(async () => {
  await app.close();
  await elsewhere.close();
  await client.close();
});

async function secrets(entry: string, env: Record<string, string> = {}): Promise<SecretSet> {
  const dir = await folderWith({ 's.yaml': `dynamic:\n${entry}` });
  const loaded = await loadSecretFiles(['s.yaml'], { cwd: dir, env });
  if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.secrets;
}

const formEntry = (path: string, extra = '') => `  - login:
      url: ${app.url}${path}
      username: alice@example.com
      password: {env: PW}
${extra}    type: cookie
    domains: ["127.0.0.1:${app.port}"]
`;

const account = (): HttpRequest => ({
  method: 'GET',
  scheme: 'http',
  hostname: '127.0.0.1',
  port: app.port,
  target: '/account',
  headers: [],
  body: '',
});

async function accountThrough(resolver: SecretResolver): Promise<{ status: number; body: string }> {
  const sent = await chain(dispatch, [withSecrets(resolver)])(account(), {});
  return { status: sent.response.statusCode, body: sent.response.body.toString('utf8') };
}

describe('form auto-login', () => {
  it('fills the form with the password field, keeps its hidden CSRF token, and sends every cookie it set', async () => {
    const resolver = new SecretResolver(await secrets(formEntry('/login'), { PW: 's3cret' }), { runner });
    const answer = await accountThrough(resolver);
    expect(answer).toEqual({ status: 200, body: 'account; pref=dark' });
    const post = app.requests.find((r) => r.method === 'POST' && r.path === '/login');
    expect(new URLSearchParams(post?.body).get('csrf')).toBe('tok-42');
  });

  it('says the password is probably wrong when the form comes back', async () => {
    const resolver = new SecretResolver(await secrets(formEntry('/login'), { PW: 'nope' }), { runner });
    const applied = await resolver.apply(account());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /failed: the login form was shown again after submitting, http:\/\/127\.0\.0\.1:\d+\/login \(status 200\): the username or password is probably wrong$/,
    );
  });

  it('says when there is no login form on the page', async () => {
    const resolver = new SecretResolver(await secrets(formEntry('/nothing'), { PW: 's3cret' }), { runner });
    const applied = await resolver.apply(account());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /no login form at http:\/\/127\.0\.0\.1:\d+\/nothing \(status 200\): none of its forms has a password field \(form \/s\)/,
    );
  });

  it('never posts the credentials to a form action outside the entry scope', async () => {
    const before = elsewhere.requests.length;
    const resolver = new SecretResolver(await secrets(formEntry('/offsite'), { PW: 's3cret' }), { runner });
    const applied = await resolver.apply(account());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /the login form posts to 127\.0\.0\.1:\d+, outside the scope of dynamic\[0\] and the host it logs in at; nothing was sent there/,
    );
    expect(elsewhere.requests.length).toBe(before);
  });

  it('checks success: as written, saying what did not hold', async () => {
    const entry = formEntry('/login', '      success: {regex: "welcome, admin", cookie: token}\n');
    const resolver = new SecretResolver(await secrets(entry, { PW: 's3cret' }), { runner });
    const applied = await resolver.apply(account());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /the login did not succeed: the page after it, http:\/\/127\.0\.0\.1:\d+\/dashboard \(status 200\): it does not match \/welcome, admin\/; it set no cookie token$/,
    );
  });

  it('logs in to a JSON API with the body template, JSON-escaping the values, and sends the token found by its path', async () => {
    const entry = `  - login:
      url: ${app.url}/api/login
      username: alice@example.com
      password: {env: PW}
      json: {body: '{"user": "{{username}}", "pass": "{{password}}"}', token: data.token}
    type: bearertoken
    token: "{{token}}"
    domains: ["127.0.0.1:${app.port}"]
`;
    const resolver = new SecretResolver(await secrets(entry, { PW: 's3"cret' }), { runner });
    expect((await accountThrough(resolver)).status).toBe(200);
    expect(resolver.redactor.redact('jwt-777 admin')).toBe('[REDACTED] admin');
  });

  it('runs the verify: check after login and every period, logging in again when the session is gone', async () => {
    let now = 5_000_000;
    const entry = formEntry(
      '/login',
      `    verify: {url: "${app.url}/whoami", regex: "signed in", every: 1m}\n`,
    );
    const resolver = new SecretResolver(await secrets(entry, { PW: 's3cret' }), { runner, now: () => now });
    expect((await accountThrough(resolver)).status).toBe(200);
    const checks = () => app.requests.filter((r) => r.path === '/whoami').map((r) => r.cookies.sid);
    const first = checks().at(-1) as string;
    expect(first).toMatch(/^s\d+$/);
    now += 30_000;
    await accountThrough(resolver);
    expect(checks().at(-1)).toBe(first);
    revoked.add(first);
    now += 31_000;
    expect((await accountThrough(resolver)).status).toBe(200);
    const after = checks().slice(-2);
    expect(after[0]).toBe(first);
    expect(after[1]).not.toBe(first);
    expect(app.requests.at(-1)?.cookies.sid).toBe(after[1]);
  });

  it('fails the login when its verify: check fails, saying what did not hold', async () => {
    const entry = formEntry('/login', `    verify: {url: "${app.url}/whoami", status: 204}\n`);
    const resolver = new SecretResolver(await secrets(entry, { PW: 's3cret' }), { runner });
    const applied = await resolver.apply(account());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /failed: the session check http:\/\/127\.0\.0\.1:\d+\/whoami failed: its status is 200, not 204$/,
    );
  });
});
