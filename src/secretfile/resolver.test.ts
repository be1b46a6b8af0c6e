import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest } from '../http/index.js';
import type { Login, SecretSet } from './model.js';
import { type LoginEvent, type LoginRunner, SecretResolver } from './resolver.js';
import { loadText } from './testing/fixtures.js';

async function secretsOf(text: string, env: Record<string, string> = {}): Promise<SecretSet> {
  const loaded = await loadText(text, { env });
  expect(loaded.messages).toEqual([]);
  if (loaded.secrets === undefined) throw new Error('invalid');
  return loaded.secrets;
}

const get = (hostname: string, port = 443, over: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'GET',
  scheme: 'https',
  hostname,
  port,
  target: '/',
  headers: [],
  body: '',
  ...over,
});

/** A login runner whose logins finish when the test says so, counting how often it ran. */
function gatedRunner(values: Record<string, string>) {
  const calls: { login: Login; target: string }[] = [];
  let open: () => void = () => {};
  let gate = new Promise<void>((r) => {
    open = r;
  });
  const runner: LoginRunner = {
    async login(login, target) {
      calls.push({ login, target });
      await gate;
      return values;
    },
  };
  return {
    runner,
    calls,
    release: () => open(),
    rearm: () => {
      gate = new Promise<void>((r) => {
        open = r;
      });
    },
  };
}

const COOKIE_ENTRY = `dynamic:
  - template: login.yaml
    variables:
      - {name: username, value: alice}
      - {name: password, value: wonderland}
    type: cookie
    domains: [app.test]
    cookies:
      - raw: "{{session}}"
`;

describe('dynamic secrets', () => {
  it('runs the login once for many concurrent requests, which all wait for it', async () => {
    const gated = gatedRunner({ session: 'sid=abc', csrf: 'c' });
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), { runner: gated.runner });
    const pending = Array.from({ length: 20 }, () => resolver.apply(get('app.test')));
    await Promise.resolve();
    expect(gated.calls).toHaveLength(1);
    gated.release();
    const results = await Promise.all(pending);
    expect(gated.calls).toHaveLength(1);
    for (const r of results) {
      expect(r.kind).toBe('applied');
      if (r.kind === 'applied') expect(r.request.headers).toEqual([['Cookie', 'sid=abc']]);
    }
  });

  it('without input, logs in against the origin of the first matching request', async () => {
    const gated = gatedRunner({ session: 'sid=abc' });
    gated.release();
    const text = COOKIE_ENTRY.replace('domains: [app.test]', 'domains: ["app.test:8443"]');
    const resolver = new SecretResolver(await secretsOf(text), { runner: gated.runner });
    await resolver.apply(get('app.test', 8443, { target: '/deep/path?q=1' }));
    expect(gated.calls.map((c) => c.target)).toEqual(['https://app.test:8443']);
  });

  it('with input, logs in against the input', async () => {
    const gated = gatedRunner({ session: 'sid=abc' });
    gated.release();
    const text = COOKIE_ENTRY.replace(
      '    type: cookie',
      '    input: https://login.app.test\n    type: cookie',
    );
    const resolver = new SecretResolver(await secretsOf(text), { runner: gated.runner });
    await resolver.apply(get('app.test'));
    expect(gated.calls.map((c) => c.target)).toEqual(['https://login.app.test']);
  });

  it('passes the variables, with $NAME values read from the environment', async () => {
    const gated = gatedRunner({ session: 'sid=abc' });
    gated.release();
    const text = COOKIE_ENTRY.replace('value: wonderland', 'value: $APP_PASSWORD');
    const resolver = new SecretResolver(await secretsOf(text, { APP_PASSWORD: 'from-env' }), {
      runner: gated.runner,
    });
    await resolver.apply(get('app.test'));
    expect(gated.calls[0]?.login.variables).toEqual([
      { name: 'username', value: 'alice' },
      { name: 'password', value: 'from-env' },
    ]);
  });

  it('remembers a failed login and reports it to every request in its scope, once', async () => {
    let runs = 0;
    const events: LoginEvent[] = [];
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), {
      runner: {
        async login() {
          runs++;
          throw new Error('connection refused');
        },
      },
      onEvent: (e) => events.push(e),
    });
    const results = await Promise.all([resolver.apply(get('app.test')), resolver.apply(get('app.test'))]);
    const later = await resolver.apply(get('app.test'));
    for (const r of [...results, later]) {
      expect(r).toMatchObject({
        kind: 'error',
        reason: 'the login of dynamic[0] of s.yaml failed: connection refused',
      });
    }
    expect(runs).toBe(1);
    expect(events.filter((e) => e.kind === 'login-failed')).toHaveLength(1);
    expect((await resolver.apply(get('other.test'))).kind).toBe('none');
  });

  it('logs in again on the next request once told to forget failed logins (a worker between scans)', async () => {
    let runs = 0;
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), {
      runner: {
        async login() {
          runs++;
          if (runs === 1) throw new Error('the app was down');
          return { session: 'sid=fresh' };
        },
      },
    });
    expect((await resolver.apply(get('app.test'))).kind).toBe('error');
    expect((await resolver.apply(get('app.test'))).kind).toBe('error');
    resolver.forgetFailedLogins();
    expect((await resolver.apply(get('app.test'))).kind).toBe('applied');
    expect(runs).toBe(2);
  });

  it('fails the login when a referenced extractor gave no value, naming it', async () => {
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), {
      runner: { login: async () => ({ csrf: 'c', session: '' }) },
    });
    expect(await resolver.apply(get('app.test'))).toMatchObject({
      kind: 'error',
      reason:
        'the login of dynamic[0] of s.yaml failed: the login gave no value for {{session}}; it gave: csrf',
    });
  });

  it('fills {{name}} in every field: header names and values, username, password, token, params, cookies', async () => {
    const text = `dynamic:
  - template: login.yaml
    secrets:
      - type: header
        domains: [h.test]
        headers: [{key: "X-{{csrf}}", value: "v-{{session}}"}]
      - type: basicauth
        domains: [b.test]
        username: "{{csrf}}"
        password: "{{session}}"
      - type: bearertoken
        domains: [t.test]
        token: "{{session}}"
      - type: query
        domains: [q.test]
        params: [{key: "{{csrf}}", value: "{{session}}"}]
      - type: cookie
        domains: [c.test]
        cookies: [{key: "{{csrf}}", value: "{{session}}"}, {raw: "Set-Cookie: jwt={{ session }}==; Path=/"}]
`;
    const resolver = new SecretResolver(await secretsOf(text), {
      runner: { login: async () => ({ session: 'S1', csrf: 'C1' }) },
    });
    const applied = async (host: string) => {
      const r = await resolver.apply(get(host));
      if (r.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(r)}`);
      return r.request;
    };
    expect((await applied('h.test')).headers).toEqual([['X-C1', 'v-S1']]);
    expect((await applied('b.test')).headers).toEqual([
      ['Authorization', `Basic ${Buffer.from('C1:S1').toString('base64')}`],
    ]);
    expect((await applied('t.test')).headers).toEqual([['Authorization', 'Bearer S1']]);
    expect((await applied('q.test')).target).toBe('/?C1=S1');
    expect((await applied('c.test')).headers).toEqual([['Cookie', 'C1=S1; jwt=S1==']]);
  });

  it('applies only the secrets: item whose scope matches, not the whole entry', async () => {
    const text = `dynamic:
  - template: login.yaml
    type: bearertoken
    domains: [api.test]
    token: "{{session}}"
    secrets:
      - type: header
        domains: [www.test]
        headers: [{key: X-CSRF, value: "{{csrf}}"}]
`;
    const resolver = new SecretResolver(await secretsOf(text), {
      runner: { login: async () => ({ session: 'S', csrf: 'C' }) },
    });
    expect(await resolver.apply(get('www.test'))).toMatchObject({
      kind: 'applied',
      request: { headers: [['X-CSRF', 'C']] },
    });
    expect(await resolver.apply(get('api.test'))).toMatchObject({
      kind: 'applied',
      request: { headers: [['Authorization', 'Bearer S']] },
    });
  });

  it('fails the login when a filled raw cookie cannot be parsed', async () => {
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), {
      runner: { login: async () => ({ session: 'no-equals-sign' }) },
    });
    const result = await resolver.apply(get('app.test'));
    expect(result).toMatchObject({ kind: 'error' });
    if (result.kind === 'error')
      expect(result.reason).toMatch(
        /^the login of dynamic\[0\] of s\.yaml failed: its session values do not make dynamic\[0\]: invalid raw cookie/,
      );
  });

  it('gives login requests static secrets only, never the dynamic secret being fetched', async () => {
    // The static entry matches app.test by regex, so the dynamic entry's domain match wins for
    // ordinary requests; a login request to the same host gets the static one.
    const text = `${COOKIE_ENTRY}static:\n  - type: basicauth\n    domains-regex: [".*"]\n    username: gate\n    password: keeper\n`;
    const seen: string[] = [];
    const resolver = new SecretResolver(await secretsOf(text), {
      runner: {
        async login(_login, _target, context) {
          // The login's own request goes to the entry's own host: it must not wait on itself.
          const own = await context.secrets.apply(get('app.test'));
          seen.push(own.kind === 'applied' ? `${own.entry.kind}:${own.request.headers[0]?.[1]}` : own.kind);
          return { session: 'sid=1' };
        },
      },
    });
    const result = await resolver.apply(get('app.test'));
    expect(result).toMatchObject({ kind: 'applied', request: { headers: [['Cookie', 'sid=1']] } });
    expect(seen).toEqual([`static:Basic ${Buffer.from('gate:keeper').toString('base64')}`]);
  });

  it('registers login values and filled secrets with the redactor', async () => {
    const resolver = new SecretResolver(await secretsOf(COOKIE_ENTRY), {
      runner: { login: async () => ({ session: 'sid=very-secret-session' }) },
    });
    await resolver.apply(get('app.test'));
    expect(resolver.redactor.redact('Cookie: sid=very-secret-session')).toBe('Cookie: [REDACTED]');
    expect(resolver.redactor.redact('token very-secret-session seen')).toBe('token [REDACTED] seen');
  });

  it('prefetches the logins it is given, at their input, and reports their failures', async () => {
    const text = COOKIE_ENTRY.replace('    type: cookie', '    input: https://app.test\n    type: cookie');
    let runs = 0;
    const secrets = await secretsOf(text);
    const resolver = new SecretResolver(secrets, {
      runner: {
        async login() {
          runs++;
          throw new Error('bad password');
        },
      },
    });
    const failures = await resolver.prefetch(
      secrets.logins.map((login) => ({ login, target: 'https://x.test' })),
    );
    expect(failures.map((f) => f.reason)).toEqual(['bad password']);
    await resolver.apply(get('app.test'));
    expect(runs).toBe(1);
  });
});

describe('re-login', () => {
  const REAUTH = COOKIE_ENTRY.replace(
    '    type: cookie',
    '    reauth:\n      status: [401]\n      max: 2\n    type: cookie',
  );

  it('runs one new login for many concurrent calls and hands out the new session', async () => {
    let n = 0;
    const gated = gatedRunner({});
    gated.release();
    const resolver = new SecretResolver(await secretsOf(REAUTH), {
      runner: {
        async login(login, target, context) {
          await gated.runner.login(login, target, context);
          n++;
          return { session: `sid=${n}` };
        },
      },
    });
    const first = await resolver.resolve(get('app.test'));
    if (first.kind !== 'secret' || first.entry.kind !== 'dynamic')
      throw new Error('expected a dynamic secret');
    gated.rearm();
    const relogins = Array.from({ length: 10 }, () =>
      resolver.relogin(first.entry as never, first.generation),
    );
    gated.release();
    expect(await Promise.all(relogins)).toEqual(Array.from({ length: 10 }, () => ({ ok: true })));
    expect(n).toBe(2);
    const second = await resolver.resolve(get('app.test'));
    expect(second).toMatchObject({ kind: 'secret', credential: { cookies: [{ name: 'sid', value: '2' }] } });
    // A request that failed with the old session does not log in again.
    await resolver.relogin(first.entry as never, first.generation);
    expect(n).toBe(2);
  });

  it('stops logging in again after reauth.max re-logins, keeps the session, and says once that it is lost', async () => {
    let n = 0;
    const events: LoginEvent[] = [];
    const resolver = new SecretResolver(await secretsOf(REAUTH), {
      runner: { login: async () => ({ session: `sid=${++n}` }) },
      onEvent: (e) => events.push(e),
    });
    const answers: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await resolver.resolve(get('app.test'));
      if (r.kind !== 'secret' || r.entry.kind !== 'dynamic') throw new Error('expected a dynamic secret');
      answers.push((await resolver.relogin(r.entry, r.generation)).ok);
    }
    expect(n).toBe(3);
    // Past the limit the answer is no: the request is not sent once more with the same session.
    expect(answers).toEqual([true, true, false, false, false]);
    expect(events.filter((e) => e.kind === 'session-lost')).toEqual([
      expect.objectContaining({
        reason:
          'the session was lost again after 2 re-logins (reauth max: 2); responses that show it lost are kept as they are',
      }),
    ]);
    expect((await resolver.resolve(get('app.test'))).kind).toBe('secret');
  });

  it('logs in again when the session is older than reauth.every', async () => {
    let now = 0;
    let n = 0;
    const text = COOKIE_ENTRY.replace('    type: cookie', '    reauth:\n      every: 15m\n    type: cookie');
    const resolver = new SecretResolver(await secretsOf(text), {
      runner: { login: async () => ({ session: `sid=${++n}` }) },
      now: () => now,
    });
    await resolver.resolve(get('app.test'));
    now = 14 * 60_000;
    expect(await resolver.resolve(get('app.test'))).toMatchObject({
      credential: { cookies: [{ value: '1' }] },
    });
    now = 15 * 60_000;
    expect(await resolver.resolve(get('app.test'))).toMatchObject({
      credential: { cookies: [{ value: '2' }] },
    });
  });

  it('tells whether a response signals a lost session', async () => {
    const text = COOKIE_ENTRY.replace(
      '    type: cookie',
      '    reauth:\n      status: [401, 403]\n      logged-out-regex: "(?i)please log in"\n    type: cookie',
    );
    const set = await secretsOf(text);
    const resolver = new SecretResolver(set);
    const entry = set.entries[0];
    if (entry === undefined) throw new Error('no entry');
    expect(resolver.signalsLoggedOut(entry, { status: 403, text: '' })).toBe(true);
    expect(resolver.signalsLoggedOut(entry, { status: 200, text: '<p>Please LOG IN</p>' })).toBe(true);
    expect(resolver.signalsLoggedOut(entry, { status: 200, text: 'welcome' })).toBe(false);
  });
});

describe('a dynamic login against a real HTTP server', () => {
  let server: Server;
  let port = 0;
  const sessions = new Set<string>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/login') {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          const form = new URLSearchParams(body);
          if (form.get('user') === 'alice' && form.get('pass') === 'wonderland') {
            const sid = `s${sessions.size + 1}x${Math.random().toString(36).slice(2)}`;
            sessions.add(sid);
            res.writeHead(302, { Location: '/', 'Set-Cookie': `sid=${sid}; Path=/; HttpOnly` }).end();
          } else res.writeHead(401).end('bad credentials');
        });
        return;
      }
      const sid = /(?:^|; )sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (sid !== undefined && sessions.has(sid)) res.writeHead(200).end('secret area');
      else res.writeHead(401).end('please log in');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Logs in with a form POST and returns the Set-Cookie pair as the `session` extractor would. */
  const httpLogin: LoginRunner = {
    async login(login, target) {
      const vars = Object.fromEntries(login.variables.map((v) => [v.name, String(v.value)]));
      const res = await fetch(`${target}/login`, {
        method: 'POST',
        body: new URLSearchParams({ user: vars.username ?? '', pass: vars.password ?? '' }),
        redirect: 'manual',
      });
      const cookie = res.headers.getSetCookie()[0];
      if (cookie === undefined) throw new Error(`login refused with status ${res.status}`);
      return { session: cookie };
    },
  };

  async function send(request: HttpRequest): Promise<number> {
    const res = await fetch(`http://${request.hostname}:${request.port}${request.target}`, {
      headers: request.headers.map(([n, v]) => [n, v] as [string, string]),
    });
    await res.text();
    return res.status;
  }

  it('logs in, fills the session cookie and reaches the page behind the login', async () => {
    const text = COOKIE_ENTRY.replace('domains: [app.test]', `domains: ["127.0.0.1:${port}"]`);
    const resolver = new SecretResolver(await secretsOf(text), { runner: httpLogin });
    const plain: HttpRequest = { ...get('127.0.0.1', port), scheme: 'http', target: '/account' };
    expect(await send(plain)).toBe(401);
    const applied = await resolver.apply(plain);
    if (applied.kind !== 'applied') throw new Error(JSON.stringify(applied));
    expect(await send(applied.request)).toBe(200);
  });

  it('turns a refused login into an error for the requests, which are not sent', async () => {
    const text = COOKIE_ENTRY.replace('domains: [app.test]', `domains: ["127.0.0.1:${port}"]`).replace(
      'value: wonderland',
      'value: wrong',
    );
    const resolver = new SecretResolver(await secretsOf(text), { runner: httpLogin });
    const result = await resolver.apply({ ...get('127.0.0.1', port), scheme: 'http' });
    expect(result).toMatchObject({
      kind: 'error',
      reason: 'the login of dynamic[0] of s.yaml failed: login refused with status 401',
    });
  });
});

describe('static secrets with verify:', () => {
  const CHECKED = `static:
  - type: bearertoken
    domains: [api.test]
    token: tok-5e1f
    verify: {url: "https://api.test/v1/me?full=1", regex: '"user":"svc"', every: 10m}
  - type: bearertoken
    domains: [other.test]
    token: tok-0a0a
`;

  /** A check answered when the test says so, with the answer it is given. */
  function gatedCheck(answer: { status: number; text: string }) {
    const sent: HttpRequest[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const runner: LoginRunner = {
      login: async () => ({}),
      check: async (request) => {
        sent.push(request);
        await gate;
        return answer;
      },
    };
    return { runner, sent, release: () => open() };
  }

  it('resolves an entry without verify: at once, without a check', async () => {
    const { runner, sent } = gatedCheck({ status: 200, text: '{"user":"svc"}' });
    const resolver = new SecretResolver(await secretsOf(CHECKED), { runner });
    const resolution = resolver.resolveNow(get('other.test'));
    expect(resolution).not.toBeInstanceOf(Promise);
    expect(resolution).toMatchObject({ kind: 'secret', credential: { token: 'tok-0a0a' } });
    expect(sent).toEqual([]);
  });

  it('checks once before the first request, with the entry secret alone; concurrent requests wait for it', async () => {
    const { runner, sent, release } = gatedCheck({ status: 200, text: '{"user":"svc"}' });
    const events: LoginEvent['kind'][] = [];
    const resolver = new SecretResolver(await secretsOf(CHECKED), {
      runner,
      onEvent: (event) => events.push(event.kind),
    });
    const pending = Array.from({ length: 20 }, () => resolver.resolve(get('api.test')));
    await Promise.resolve();
    expect(sent).toEqual([
      {
        method: 'GET',
        scheme: 'https',
        hostname: 'api.test',
        port: 443,
        target: '/v1/me?full=1',
        headers: [['Authorization', 'Bearer tok-5e1f']],
        body: '',
      },
    ]);
    release();
    for (const resolution of await Promise.all(pending))
      expect(resolution).toMatchObject({ kind: 'secret', credential: { token: 'tok-5e1f' } });
    // Once passed, the secret is known at once again.
    expect(resolver.resolveNow(get('api.test'))).not.toBeInstanceOf(Promise);
    expect(sent).toHaveLength(1);
    expect(events).toEqual(['secret-check', 'secret-check-ok']);
  });

  it('refuses every request in scope when the check fails, and tells the failure once', async () => {
    const { runner, release } = gatedCheck({ status: 200, text: '{"user":"anonymous"}' });
    const failures: string[] = [];
    const resolver = new SecretResolver(await secretsOf(CHECKED), {
      runner,
      onEvent: (event) => {
        if (event.kind === 'secret-check-failed') failures.push(event.reason);
      },
    });
    release();
    const reason =
      'static[0] of s.yaml: the secret check https://api.test/v1/me?full=1 failed: it does not match /"user":"svc"/';
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'error', reason });
    expect(resolver.resolveNow(get('api.test'))).toMatchObject({ kind: 'error', reason });
    expect(await resolver.apply(get('api.test'))).toMatchObject({ kind: 'error', reason });
    expect(failures).toEqual([
      'the secret check https://api.test/v1/me?full=1 failed: it does not match /"user":"svc"/',
    ]);
    // Other entries are not held back.
    expect(resolver.resolveNow(get('other.test'))).toMatchObject({ kind: 'secret' });
  });

  it('checks again every `every`: requests wait for it, and are refused once the secret stops passing', async () => {
    let now = 0;
    let user = 'svc';
    let checks = 0;
    const resolver = new SecretResolver(await secretsOf(CHECKED), {
      runner: {
        login: async () => ({}),
        check: async () => {
          checks++;
          return { status: 200, text: `{"user":"${user}"}` };
        },
      },
      now: () => now,
    });
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'secret' });
    now = 9 * 60_000;
    expect(resolver.resolveNow(get('api.test'))).toMatchObject({ kind: 'secret' });
    expect(checks).toBe(1);
    now = 10 * 60_000;
    const again = resolver.resolveNow(get('api.test'));
    expect(again).toBeInstanceOf(Promise);
    expect(await again).toMatchObject({ kind: 'secret' });
    expect(checks).toBe(2);
    user = 'anonymous';
    now = 20 * 60_000;
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'error' });
    now = 40 * 60_000;
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'error' });
    expect(checks).toBe(3);
  });

  it('checks again once told to forget failures (a worker between scans)', async () => {
    let status = 401;
    const resolver = new SecretResolver(await secretsOf(CHECKED.replace(/regex: .*, every/, 'every')), {
      runner: { login: async () => ({}), check: async () => ({ status, text: '' }) },
    });
    expect(await resolver.resolve(get('api.test'))).toMatchObject({
      kind: 'error',
      reason:
        'static[0] of s.yaml: the secret check https://api.test/v1/me?full=1 failed: its status is 401, not 200',
    });
    status = 200;
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'error' });
    resolver.forgetFailedLogins();
    expect(await resolver.resolve(get('api.test'))).toMatchObject({ kind: 'secret' });
  });

  it("shares the check with a login's own requests", async () => {
    const { runner, sent, release } = gatedCheck({ status: 200, text: '{"user":"svc"}' });
    const resolver = new SecretResolver(await secretsOf(CHECKED), { runner });
    const scan = resolver.resolve(get('api.test'));
    const login = resolver.forLogin().resolve(get('api.test'));
    release();
    expect(await login).toMatchObject({ kind: 'secret', credential: { token: 'tok-5e1f' } });
    expect(await scan).toMatchObject({ kind: 'secret' });
    expect(sent).toHaveLength(1);
  });

  it('refuses the entry when no check can be sent', async () => {
    const resolver = new SecretResolver(await secretsOf(CHECKED), { runner: { login: async () => ({}) } });
    expect(await resolver.resolve(get('api.test'))).toMatchObject({
      kind: 'error',
      reason: 'static[0] of s.yaml: no secret check runner is configured',
    });
  });

  it('runs the checks it is given now (-prefetch-secrets), and gives their failures', async () => {
    const set = await secretsOf(CHECKED);
    let checks = 0;
    const resolver = new SecretResolver(set, {
      runner: {
        login: async () => ({}),
        check: async () => {
          checks++;
          throw new Error('connection refused');
        },
      },
    });
    const [checked] = set.entries;
    if (checked?.kind !== 'static') throw new Error('expected a static entry');
    expect(await resolver.prefetchChecks([checked])).toEqual([
      {
        secret: checked,
        reason: 'the secret check https://api.test/v1/me?full=1 could not be sent: connection refused',
      },
    ]);
    await resolver.resolve(get('api.test'));
    expect(checks).toBe(1);
  });
});
