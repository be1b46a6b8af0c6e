import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowEngineCounts } from '../flow/index.js';
import { HttpClient, type HttpRequest } from '../http/index.js';
import { hotp, type Login, loadSecretFiles, SecretResolver, type SecretSet } from '../secretfile/index.js';

import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { runTemplate, TemplateLoginRunner } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
let dir: string;
/** Where the app's single sign-on step sends a login with a 307 (the body, credentials and all, follows). */
let ssoRedirect = '';
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);
const runner = new TemplateLoginRunner({ dispatch });

const loginTemplate = `id: app-login
info:
  name: App login
  author: tester
  severity: info
variables:
  username: guest
  password: guest
http:
  - raw:
      - |
        GET /login HTTP/1.1
        Host: {{Hostname}}
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        csrf={{csrf}}&user={{username}}&pass={{password}}
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
        part: header
        group: 1
        regex: ['Set-Cookie: (sid=[a-z0-9]+)']
`;

beforeAll(async () => {
  server = await fixtureServer([
    { method: 'GET', path: '/login', respond: { body: '<input name="csrf" value="c-77">' } },
    {
      method: 'POST',
      path: '/login',
      when: (r) => r.body === 'csrf=c-77&user=admin&pass=hunter2',
      respond: { status: 302, headers: { Location: '/', 'Set-Cookie': 'sid=abc123; Path=/' } },
    },
    {
      method: 'POST',
      path: '/login',
      when: (r) => r.body === 'csrf=c-77&user=nocookie&pass=hunter2',
      respond: { status: 302, headers: { Location: '/' } },
    },
    { method: 'POST', path: '/login', respond: { status: 401, body: 'wrong password' } },
    { path: '/account', when: (r) => r.cookies.sid === 'abc123', respond: { body: 'account of admin' } },
    {
      path: '/out',
      respond: () => ({ status: 302, headers: { Location: `http://localhost:${server.port}/public` } }),
    },
    { path: '/public', respond: { body: 'public page' } },
    { method: 'POST', path: '/sso', respond: () => ({ status: 307, headers: { Location: ssoRedirect } }) },
  ]);
  dir = mkdtempSync(join(tmpdir(), 'keyhole-login-'));
  writeFileSync(join(dir, 'login.yaml'), loginTemplate);
  writeFileSync(
    join(dir, 'login-flow.yaml'),
    loginTemplate.replace('\nhttp:', '\nflow: |\n  const sent = http(1)\nhttp:'),
  );
  writeFileSync(join(dir, 'broken.yaml'), 'id: broken\ninfo: {name: b, author: t}\nhttp:\n  - method: GET\n');
});

afterAll(async () => {
  await server.close();
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A secret file: the app (127.0.0.1) gets the session cookie of a login that runs on localhost, which
 * itself gets a static header.
 */
async function secrets(
  user: string,
  password: string,
  loginFile = 'login.yaml',
  staticVerify = '',
): Promise<SecretSet> {
  const file = join(dir, `secrets-${user}-${password}-${staticVerify.length}-${loginFile}`);
  writeFileSync(
    file,
    `static:
  - type: header
    domains: ["localhost:${server.port}"]
    headers:
      - key: X-Static
        value: static-value
${staticVerify}dynamic:
  - template: ${loginFile}
    input: http://localhost:${server.port}
    variables:
      - name: username
        value: ${user}
      - name: password
        value: ${password}
    type: cookie
    domains: ["127.0.0.1:${server.port}"]
    cookies:
      - raw: "{{session}}"
`,
  );
  const loaded = await loadSecretFiles([file], { cwd: dir, env: {}, checkPermissions: false });
  if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.secrets;
}

const appRequest = (): HttpRequest => ({
  method: 'GET',
  scheme: 'http',
  hostname: '127.0.0.1',
  port: server.port,
  target: '/account',
  headers: [],
  body: '',
});

describe('TemplateLoginRunner', () => {
  it('logs in with the entry variables and gives every named extractor value, first per name', async () => {
    const set = await secrets('admin', 'hunter2');
    const login = set.logins[0] as Login;
    const resolver = new SecretResolver(set, { runner });
    const values = await runner.login(login, `http://localhost:${server.port}`, {
      secrets: resolver.forLogin(),
    });
    expect(values).toEqual({ csrf: 'c-77', session: 'sid=abc123' });
  });

  it('fills the dynamic secret of the app: its requests carry the session, the login requests only static secrets', async () => {
    const resolver = new SecretResolver(await secrets('admin', 'hunter2'), { runner });
    const before = server.requests.length;
    const applied = await resolver.apply(appRequest());
    expect(applied.kind).toBe('applied');
    const loginRequests = server.requests.slice(before);
    expect(
      loginRequests.map((r) => `${r.method} ${r.host} ${r.headers['x-static']} ${r.cookies.sid}`),
    ).toEqual(['GET localhost static-value undefined', 'POST localhost static-value undefined']);
    if (applied.kind === 'applied') expect(applied.request.headers).toContainEqual(['Cookie', 'sid=abc123']);
  });

  it('sends the login requests only once the static secret they carry passed its check, and none when it failed', async () => {
    const check = (regex: string) =>
      `    verify: {url: "http://localhost:${server.port}/public", regex: ${regex}}\n`;
    const passing = new SecretResolver(await secrets('admin', 'hunter2', 'login.yaml', check('public')), {
      runner,
    });
    const before = server.requests.length;
    expect((await passing.apply(appRequest())).kind).toBe('applied');
    expect(
      server.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.headers['x-static']}`),
    ).toEqual(['GET /public static-value', 'GET /login static-value', 'POST /login static-value']);

    const failing = new SecretResolver(await secrets('admin', 'hunter2', 'login.yaml', check('private')), {
      runner,
    });
    const after = server.requests.length;
    const applied = await failing.apply(appRequest());
    expect(applied.kind === 'error' && applied.reason).toContain(
      `static[0] of ${join(dir, 'secrets-admin-hunter2-')}`,
    );
    expect(applied.kind === 'error' && applied.reason).toContain(
      `the secret check http://localhost:${server.port}/public failed: it does not match /private/`,
    );
    expect(server.requests.slice(after).map((r) => r.path)).toEqual(['/public']);
  });

  it('fails when the template has matchers and none matched, showing the last status', async () => {
    const resolver = new SecretResolver(await secrets('admin', 'wrong'), { runner });
    const applied = await resolver.apply(appRequest());
    expect(applied.kind).toBe('error');
    if (applied.kind === 'error') {
      expect(applied.reason).toMatch(
        /^the login of dynamic\[0\] of \S+ failed: the login template app-login did not match: the login was probably refused \(the last response had status 401\)$/,
      );
    }
  });

  it('fails when a name the secret uses got no value, naming it and what was extracted', async () => {
    const resolver = new SecretResolver(await secrets('nocookie', 'hunter2'), { runner });
    const applied = await resolver.apply(appRequest());
    expect(applied.kind).toBe('error');
    if (applied.kind === 'error') {
      expect(applied.reason).toMatch(
        /failed: the login template app-login gave no value for \{\{session\}\}: it extracted csrf \(the last response had status 302\)$/,
      );
    }
  });

  it('names the variable a login request lacks, and says to give it in the entry', async () => {
    const set = await secrets('admin', 'hunter2');
    const base = set.logins[0] as Login;
    const login = { ...base, variables: base.variables.filter((v) => v.name !== 'password') };
    writeFileSync(join(dir, 'needs-otp.yaml'), loginTemplate.replace('&pass={{password}}', '&otp={{otp}}'));
    const needsOtp = {
      ...login,
      method: { kind: 'template' as const, template: join(dir, 'needs-otp.yaml') },
    };
    const attempt = runner.login(needsOtp, server.localhostUrl, {
      secrets: new SecretResolver(set).forLogin(),
    });
    await expect(attempt).rejects.toThrow(
      `the login template app-login cannot build its request 2 of block 1: it needs the variable "otp", which the entry does not give; add it to the entry's variables: (- {name: otp, value: …})`,
    );
  });

  it('does not follow a login redirect out of its scope: the credentials stay, and the login fails saying why', async () => {
    const elsewhere = await fixtureServer([{ path: /.*/, respond: { body: 'thanks for the password' } }]);
    try {
      const set = await secrets('admin', 'hunter2');
      writeFileSync(
        join(dir, 'sso.yaml'),
        loginTemplate
          .replace('POST /login HTTP/1.1', 'POST /sso HTTP/1.1')
          .replace('  - raw:', '  - redirects: true\n    raw:'),
      );
      const login = {
        ...(set.logins[0] as Login),
        method: { kind: 'template' as const, template: join(dir, 'sso.yaml') },
      };
      ssoRedirect = `${elsewhere.url}/collect`;
      const before = server.requests.length;
      const attempt = runner.login(login, server.localhostUrl, {
        secrets: new SecretResolver(set).forLogin(),
      });
      await expect(attempt).rejects.toThrow(
        `the login was redirected to 127.0.0.1:${elsewhere.port}, outside the scope of dynamic[0] and the host it logs in at`,
      );
      expect(elsewhere.requests).toEqual([]);
      expect(server.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /login',
        'POST /sso',
      ]);
    } finally {
      await elsewhere.close();
    }
  });

  it('fails with the template errors and their positions when the template does not parse', async () => {
    const set = await secrets('admin', 'hunter2');
    const login = {
      ...(set.logins[0] as Login),
      method: { kind: 'template' as const, template: join(dir, 'broken.yaml') },
    };
    const attempt = runner.login(login, server.url, { secrets: new SecretResolver(set).forLogin() });
    await expect(attempt).rejects.toThrow(/broken\.yaml:4:\d+/);
  });

  it('lets a scan use the login: the session goes to the app, never to the host it redirects to', async () => {
    const resolver = new SecretResolver(await secrets('admin', 'hunter2'), { runner });
    const scan = template(`id: account
info: {name: a, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/account"]
    matchers:
      - type: word
        words: ["account of admin"]
`);
    const run = await runTemplate(scan, server.url, { dispatch: chain(dispatch, [withSecrets(resolver)]) });
    expect(run.matched).toBe(true);
    expect(server.requests.at(-1)?.cookies.sid).toBe('abc123');

    const following = template(`id: follow
info: {name: a, author: t}
http:
  - method: GET
    path: ["{{BaseURL}}/out"]
    redirects: true
    matchers:
      - type: word
        words: ["public page"]
`);
    const before = server.requests.length;
    const followed = await runTemplate(following, server.url, {
      dispatch: chain(dispatch, [withSecrets(resolver)]),
    });
    expect(followed.matched).toBe(true);
    const hops = server.requests.slice(before);
    expect(hops.map((r) => `${r.host} sid=${r.cookies.sid} static=${r.headers['x-static']}`)).toEqual([
      '127.0.0.1 sid=abc123 static=undefined',
      'localhost sid=undefined static=static-value',
    ]);
  });

  it('logs in with a flow template while runs waiting for that login hold every flow engine', async () => {
    const resolver = new SecretResolver(await secrets('admin', 'hunter2', 'login-flow.yaml'), { runner });
    const { max } = flowEngineCounts();
    // Engines ready for the runs below, which then take every one before the login asks for one.
    await Promise.all(
      Array.from({ length: max }, () => runTemplate(template(APP_FLOW), server.url, { dispatch })),
    );
    const runs = Array.from({ length: max * 2 }, () =>
      runTemplate(template(APP_FLOW), server.url, { dispatch: chain(dispatch, [withSecrets(resolver)]) }),
    );
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), 10_000);
    });
    const done = await Promise.race([Promise.all(runs), stuck]);
    clearTimeout(timer);
    expect(done === 'stuck' ? done : done.map((run) => [run.matched, run.flowError])).toEqual(
      Array.from({ length: max * 2 }, () => [true, undefined]),
    );
    expect(flowEngineCounts().existing).toBeLessThanOrEqual(max);
  });
});

/** A scan template whose JavaScript flow (not a chain of `http(N)`, which runs without one) reads the app's account page (the session's). */
const APP_FLOW = `id: account-flow
info: {name: a, author: t}
flow: |
  const read = http(1)
http:
  - method: GET
    path: ["{{BaseURL}}/account"]
    matchers:
      - type: word
        words: ["account of admin"]
`;

describe('TemplateLoginRunner with a {totp: …} variable', () => {
  it('sends a fresh one-time code at every login, never one the server already took', async () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    const used = new Set<string>();
    const accepted: string[] = [];
    const otpServer = await fixtureServer([
      { method: 'GET', path: '/login', respond: { body: '<input name="csrf" value="c-1">' } },
      {
        method: 'POST',
        path: '/login',
        respond: (r) => {
          const code = new URLSearchParams(r.body).get('pass') ?? '';
          const step = Math.floor(Date.now() / 1000);
          const valid = [step, step - 1].some((s) => hotp(key, s, 6, 'sha1') === code);
          if (!valid || used.has(code)) return { status: 401, body: 'wrong code' };
          used.add(code);
          accepted.push(code);
          return { status: 302, headers: { 'Set-Cookie': `sid=s${accepted.length}; Path=/`, Location: '/' } };
        },
      },
    ]);
    try {
      const file = join(dir, 'totp-secrets.yaml');
      writeFileSync(
        file,
        `dynamic:
  - template: login.yaml
    input: ${otpServer.url}
    variables:
      - {name: username, value: admin}
      - {name: password, value: {totp: GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ, period: 1}}
    type: cookie
    domains: ["127.0.0.1:${otpServer.port}"]
    cookies: [{raw: "{{session}}"}]
`,
      );
      const loaded = await loadSecretFiles([file], { cwd: dir, env: {}, checkPermissions: false });
      const set = loaded.secrets as SecretSet;
      const login = set.logins[0] as Login;
      const context = { secrets: new SecretResolver(set).forLogin() };
      const first = await runner.login(login, otpServer.url, context);
      const second = await runner.login(login, otpServer.url, context);
      expect([first.session, second.session]).toEqual(['sid=s1', 'sid=s2']);
      expect(new Set(accepted).size).toBe(2);
    } finally {
      await otpServer.close();
    }
  });
});
