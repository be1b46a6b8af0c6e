/**
 * Secret values never show in what `keyhole scan` prints or writes (stdout, stderr, the -o file),
 * in any event field or error, unless --no-redact: the hosts echo every request back, extractors
 * pull the secrets out of the echo, -ms adds the non-matches, and one host refuses connections so
 * that its error names a URL carrying a query secret. The -me, -se and -je exports are held to the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

let basicHost: TestHost;
let cookieHost: TestHost;
let headerHost: TestHost;
let loginHost: TestHost;
let closedPort: number;
let ws: Workspace;

const SECRETS = {
  user: 'redact-user-1a2b',
  password: 'redact-pass-3c4d',
  query: 'redact query/5e+6f&=',
  header: 'redact-header-7a8b',
  cookie: 'redact-cookie-9c0d',
  session: 'redact-session-1e2f',
  loginPassword: 'redact-login-3a4b',
  commandLineHeader: 'redact-cli-5c6d',
};

/** Every form a secret may take in output: as is, base64 of the basic pair, percent- and form-encoded. */
const FORBIDDEN = [
  ...Object.values(SECRETS),
  Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64'),
  encodeURIComponent(SECRETS.query),
  encodeURIComponent(SECRETS.query).replaceAll('%20', '+'),
  new URLSearchParams({ q: SECRETS.query }).toString().slice(2),
  encodeURIComponent(SECRETS.loginPassword),
];

const echo = (request: { raw: string }) => ({
  body: `echo\n${request.raw}`,
  headers: { 'X-Seen': request.raw.split('\r\n').slice(1, 4).join(' | ') },
});

beforeAll(async () => {
  basicHost = await startHost('127.0.0.1', echo);
  cookieHost = await startHost('127.0.0.2', echo);
  headerHost = await startHost('localhost', echo);
  loginHost = await startHost('127.0.0.1', (request) => {
    if (request.path === '/login') {
      return new URLSearchParams(request.body).get('password') === SECRETS.loginPassword
        ? { status: 302, headers: { 'Set-Cookie': `session=${SECRETS.session}; Path=/`, Location: '/' } }
        : { status: 401 };
    }
    return echo(request);
  });
  const closed = await startHost('127.0.0.2', echo);
  closedPort = closed.port;
  await closed.close();
  ws = new Workspace();
  ws.file(
    'login.yaml',
    `id: login
info: {name: login, author: keyhole, severity: info}
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        password={{password}}
    extractors:
      - type: regex
        name: session
        internal: true
        part: header
        group: 1
        regex: ['Set-Cookie: (session=[^;]+)']
`,
  );
  ws.file(
    'secrets.yaml',
    `static:
  - type: basicauth
    domains: ["${basicHost.authority}"]
    username: ${SECRETS.user}
    password: ${SECRETS.password}
  - type: cookie
    domains: ["${cookieHost.authority}"]
    cookies: [{key: sid, value: ${SECRETS.cookie}}]
  - type: header
    domains: ["${headerHost.authority}"]
    headers: [{key: X-Api-Key, value: ${SECRETS.header}}]
  - type: query
    domains: ["127.0.0.2:${closedPort}", "${basicHost.authority}"]
    params: [{key: token, value: "${SECRETS.query}"}]
dynamic:
  - template: login.yaml
    variables: [{name: password, value: ${SECRETS.loginPassword}}]
    type: cookie
    domains: ["${loginHost.authority}"]
    cookies: [{raw: "{{session}}"}]
`,
  );
  ws.file(
    'echo.yaml',
    `id: echo
info: {name: echo, author: keyhole, severity: high}
http:
  - method: GET
    path: ["{{BaseURL}}/echo?q=1"]
    matchers:
      - type: word
        name: echoed
        words: ["echo"]
    extractors:
      - type: regex
        name: credentials
        regex: ['(?i)(authorization|cookie|x-api-key): [^\\r\\n]+', 'token=[^ &\\r\\n]+']
`,
  );
  ws.file(
    'miss.yaml',
    `id: miss
info: {name: miss, author: keyhole, severity: low}
http:
  - method: POST
    path: ["{{BaseURL}}/miss"]
    body: "echo back {{password}}"
    matchers:
      - type: word
        words: ["never in any answer"]
`,
  );
});

afterAll(async () => {
  await Promise.all([basicHost, cookieHost, headerHost, loginHost].map((h) => h.close()));
  ws.remove();
});

async function scanEverything(...extra: string[]) {
  const result = await ws.cli([
    'scan',
    ...[basicHost, cookieHost, headerHost, loginHost].flatMap((h) => ['-u', h.origin]),
    '-u',
    `http://127.0.0.2:${closedPort}`,
    '-t',
    'echo.yaml',
    '-t',
    'miss.yaml',
    '-var',
    `password=${SECRETS.loginPassword}`,
    '-sf',
    'secrets.yaml',
    '-H',
    `X-Auth-Token: ${SECRETS.commandLineHeader}`,
    '-H',
    'X-Trace: visible-trace-42',
    '-ms',
    '-retries',
    '0',
    '-o',
    'out.jsonl',
    '-j',
    '-me',
    'md',
    '-se',
    'out.sarif',
    '-je',
    'out.json',
    '--no-store',
    ...extra,
  ]);
  expect(result.code, result.err).toBe(0);
  const markdown = readdirSync(ws.path('md')).map((name) => readFileSync(ws.path(`md/${name}`), 'utf8'));
  const exports = [readFileSync(ws.path('out.sarif'), 'utf8'), readFileSync(ws.path('out.json'), 'utf8')];
  return {
    ...result,
    file: readFileSync(ws.path('out.jsonl'), 'utf8'),
    exports: [...markdown, ...exports].join('\n'),
  };
}

describe('redaction of scan output', () => {
  it('shows no secret value in stdout, stderr, the JSONL file or the exports, in any form', async () => {
    const { out, err, file, exports } = await scanEverything();
    const events = file
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // The scan did meet every secret: the echoes and extractions are there, masked.
    expect(events.filter((e) => e['matcher-status'])).toHaveLength(4);
    // -ms: the four reachable runs that matched nothing, and both templates on the closed port,
    // whose events carry the transport error.
    expect(events.filter((e) => !e['matcher-status'])).toHaveLength(6);
    expect(events.filter((e) => e.error !== undefined)).toHaveLength(2);
    expect(file).toContain('Authorization: Basic [REDACTED]');
    expect(file).toContain('X-Api-Key: [REDACTED]');
    expect(file).toContain('sid=[REDACTED]');
    expect(file).toContain('Cookie: [REDACTED]');
    expect(err).toContain(`http://127.0.0.2:${closedPort}/echo?q=1&token=[REDACTED]`);
    // A credential given with -H is masked too; an ordinary -H header stays readable.
    expect(file).toContain('X-Auth-Token: [REDACTED]');
    expect(file).toContain('X-Trace: visible-trace-42');
    // The exports hold the same findings, masked the same way.
    expect(exports).toContain('X-Api-Key: [REDACTED]');
    expect(exports).toContain('Authorization: Basic [REDACTED]');
    for (const [name, text] of Object.entries({ out, err, file, exports })) {
      for (const secret of FORBIDDEN) expect(text, `${name} holds ${secret}`).not.toContain(secret);
    }
  });

  it('shows the values with --no-redact', async () => {
    const { out, err, file, exports } = await scanEverything('--no-redact');
    const all = `${out}${err}${file}`;
    expect(exports).toContain(SECRETS.header);
    for (const secret of [
      SECRETS.header,
      SECRETS.cookie,
      SECRETS.session,
      SECRETS.loginPassword,
      SECRETS.commandLineHeader,
    ])
      expect(all).toContain(secret);
    expect(file).toContain(Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64'));
    expect(err).toContain(encodeURIComponent(SECRETS.query));
  });
});
