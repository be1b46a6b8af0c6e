/**
 * The security rules of the request seam, in one place, over real servers on loopback: the secret
 * of each request's own host and no other, a refused request never on the wire, one new login
 * however many responses show the session lost and one resend per request, one rate token per
 * request on the wire, and nothing sent once the scan is stopped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TemplateLoginRunner } from '../engine/index.js';
import { HttpClient, type HttpRequest, RateLimiter, TransportError } from '../http/index.js';
import { type SeenRequest, startHost, type TestHost } from '../scan/testing/hosts.js';
import { loadSecretFiles, type ScopedSecret, SecretResolver } from '../secretfile/index.js';
import {
  chain,
  type Dispatch,
  onTheWire,
  Refused,
  type Rejection,
  rateLimited,
  retrying,
  transportDispatch,
  withSecrets,
} from './index.js';

/** The app: a form login handing out `session=s<n>`; `/data` answers only the newest session. */
const app = { logins: 0, newest: '', resets: 0 };
let appHost: TestHost;
let apiHost: TestHost;
let elsewhere: TestHost;
let dir: string;
const client = new HttpClient({ timeoutMs: 5000 });

function answer(request: SeenRequest) {
  if (request.path === '/login') {
    if (new URLSearchParams(request.body).get('password') !== 'hunter2') return { status: 401 };
    app.logins++;
    app.newest = `s${app.logins}`;
    return { status: 302, headers: { Location: '/', 'Set-Cookie': `session=${app.newest}; Path=/` } };
  }
  if (request.path === '/never') return { status: 401, body: 'logged out' };
  return request.cookies.session === app.newest ? { body: 'data' } : { status: 401, body: 'logged out' };
}

beforeAll(async () => {
  appHost = await startHost('127.0.0.1', answer);
  apiHost = await startHost('127.0.0.2', () => ({ body: 'api' }));
  elsewhere = await startHost('localhost', () => ({ body: 'elsewhere' }));
  dir = mkdtempSync(join(tmpdir(), 'keyhole-seam-'));
  writeFileSync(
    join(dir, 'login.yaml'),
    `id: app-login
info: {name: login, author: keyhole, severity: info}
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        password={{password}}
    matchers:
      - type: status
        status: [302]
    extractors:
      - type: regex
        name: session
        part: header
        group: 1
        regex: ['Set-Cookie: (session=[^;]+)']
`,
  );
});

afterAll(async () => {
  await Promise.all([appHost.close(), apiHost.close(), elsewhere.close(), client.close()]);
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  for (const host of [appHost, apiHost, elsewhere]) host.requests.length = 0;
});

async function resolverWith(password: string): Promise<SecretResolver> {
  const file = join(dir, `secrets-${password}.yaml`);
  writeFileSync(
    file,
    `static:
  - type: bearertoken
    domains: ["${apiHost.authority}"]
    token: api-token-0c1d
dynamic:
  - template: login.yaml
    variables: [{name: password, value: ${password}}]
    reauth: {status: [401], max: 5}
    type: cookie
    domains: ["${appHost.authority}"]
    cookies: [{raw: "{{session}}"}]
`,
    { mode: 0o600 },
  );
  const loaded = await loadSecretFiles([file], { cwd: dir, env: {} });
  if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
  return new SecretResolver(loaded.secrets, {
    redactor: loaded.redactor,
    runner: new TemplateLoginRunner({ dispatch: transportDispatch(client) }),
  });
}

/** What the observer of the secrets interceptor saw, by entry. */
function observed() {
  const seen = { sent: [] as string[], refused: [] as string[], answered: [] as string[] };
  const label = (secret: ScopedSecret | undefined) =>
    secret === undefined ? 'none' : `${secret.origin.section}[${secret.origin.index}]`;
  return {
    seen,
    observer: {
      sent: (secret: ScopedSecret | undefined) => seen.sent.push(label(secret)),
      refused: (secret: ScopedSecret) => seen.refused.push(label(secret)),
      answered: (secret: ScopedSecret, rejection: Rejection | undefined) =>
        seen.answered.push(`${label(secret)} ${rejection ?? 'taken'}`),
    },
  };
}

const get = (host: TestHost, path: string): HttpRequest => ({
  method: 'GET',
  scheme: 'http',
  hostname: host.name,
  port: host.port,
  target: path,
  headers: [['Host', host.authority]],
  body: '',
});

describe('the secret of each request', () => {
  it("is its own host's, and no other host gets one", async () => {
    const { seen, observer } = observed();
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'), observer)]);
    for (const host of [appHost, apiHost, elsewhere]) await dispatch(get(host, '/data'), {});
    expect(appHost.requests.filter((r) => r.path === '/data').map((r) => r.cookies.session)).toEqual([
      app.newest,
    ]);
    expect(apiHost.requests.map((r) => r.headers.authorization)).toEqual(['Bearer api-token-0c1d']);
    expect(elsewhere.requests.map((r) => [r.headers.authorization, r.headers.cookie])).toEqual([
      [undefined, undefined],
    ]);
    expect(seen.sent).toEqual(['dynamic[0]', 'static[0]', 'none']);
    expect(seen.answered).toEqual(['dynamic[0] taken', 'static[0] taken']);
  });

  it('is given back with the response: the request as it went on the wire', async () => {
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'))]);
    const sent = await dispatch(get(apiHost, '/x'), {});
    expect(sent.request).toMatchObject({
      headers: expect.arrayContaining([['Authorization', 'Bearer api-token-0c1d']]),
    });
  });

  it('is edited into the text of a request sent as bytes', async () => {
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'))]);
    const text = `GET /raw HTTP/1.1\r\nHost: ${apiHost.authority}\r\nX-Keep: as written\r\n\r\n`;
    await dispatch({ scheme: 'http', hostname: apiHost.name, port: apiHost.port, bytes: text }, {});
    expect(apiHost.requests.map((r) => r.headers.authorization)).toEqual(['Bearer api-token-0c1d']);
  });

  it('is left off a request of a block that opts out, counted as sent without one', async () => {
    const { seen, observer } = observed();
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'), observer)]);
    await dispatch(get(apiHost, '/skip'), { withoutSecrets: true });
    expect(apiHost.requests.map((r) => r.headers.authorization)).toEqual([undefined]);
    expect(seen.sent).toEqual(['none']);
  });
});

describe('a failed login', () => {
  it('refuses every request in its scope: none reaches the wire', async () => {
    const { seen, observer } = observed();
    let onTheWireCount = 0;
    const dispatch = chain(transportDispatch(client), [
      withSecrets(await resolverWith('wrong'), observer),
      onTheWire(() => onTheWireCount++),
    ]);
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((n) => dispatch(get(appHost, `/data?n=${n}`), {})),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(Refused);
    }
    expect(appHost.requests.filter((r) => r.path !== '/login')).toEqual([]);
    expect(onTheWireCount).toBe(0);
    expect(seen.refused).toEqual(['dynamic[0]', 'dynamic[0]', 'dynamic[0]']);
  });
});

describe('a lost session', () => {
  it('logs in again once however many responses show it, and sends each request once more', async () => {
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'))]);
    await dispatch(get(appHost, '/data'), {});
    const loginsBefore = app.logins;
    // The app drops the session behind the scanner's back.
    app.newest = 'rotated';
    appHost.requests.length = 0;
    const sent = await Promise.all([1, 2, 3, 4, 5].map((n) => dispatch(get(appHost, `/data?n=${n}`), {})));
    expect(sent.map((s) => s.response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(app.logins).toBe(loginsBefore + 1);
    const data = appHost.requests.filter((r) => r.path === '/data');
    expect(data).toHaveLength(10);
    expect(data.filter((r) => r.cookies.session === app.newest)).toHaveLength(5);
  });

  it('does not send a request a third time when the response after the new login still shows it', async () => {
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'))]);
    const sent = await dispatch(get(appHost, '/never'), {});
    expect(sent.response.statusCode).toBe(401);
    expect(appHost.requests.filter((r) => r.path === '/never')).toHaveLength(2);
  });

  it('tells the observer the answer the sender gets: the resend after the new login, not the one before', async () => {
    const { seen, observer } = observed();
    const dispatch = chain(transportDispatch(client), [withSecrets(await resolverWith('hunter2'), observer)]);
    await dispatch(get(appHost, '/data'), {});
    app.newest = 'rotated';
    await dispatch(get(appHost, '/data'), {});
    await dispatch(get(appHost, '/never'), {});
    expect(seen.sent).toEqual(['dynamic[0]', 'dynamic[0]', 'dynamic[0]', 'dynamic[0]', 'dynamic[0]']);
    expect(seen.answered).toEqual(['dynamic[0] taken', 'dynamic[0] taken', 'dynamic[0] unauthorized']);
  });
});

describe('the wire', () => {
  it('takes one rate token per request on the wire: each resend and each login request its own', async () => {
    let tokens = 0;
    const limiter = new RateLimiter(10_000);
    const counted = Object.assign(Object.create(limiter) as RateLimiter, {
      take: () => {
        tokens++;
        return limiter.take();
      },
    });
    let wire = 0;
    let connections = 0;
    const flaky = await startHost('127.0.0.1', (request) => {
      connections++;
      return connections === 1 ? { delayMs: Number.POSITIVE_INFINITY } : { body: request.path };
    });
    try {
      const base = chain(transportDispatch(client), [
        retrying(1),
        rateLimited(counted),
        onTheWire(() => wire++),
      ]);
      const sent = await base(get(flaky, '/once'), { timeoutMs: 200 });
      expect(sent.response.statusCode).toBe(200);
      expect(flaky.requests).toHaveLength(2);
      expect(tokens).toBe(2);
      expect(wire).toBe(2);
    } finally {
      await flaky.close();
    }
  });

  it('sends and counts nothing once the scan is stopped, and fails a request waiting for its token', async () => {
    let wire = 0;
    const stop = new AbortController();
    const dispatch: Dispatch = chain(transportDispatch(client), [
      rateLimited(new RateLimiter(1)),
      onTheWire(() => wire++),
    ]);
    await dispatch(get(apiHost, '/first'), { signal: stop.signal });
    const waiting = dispatch(get(apiHost, '/second'), { signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'aborted' });
    await expect(dispatch(get(apiHost, '/third'), { signal: stop.signal })).rejects.toBeInstanceOf(
      TransportError,
    );
    expect(wire).toBe(1);
    expect(apiHost.requests.map((r) => r.path)).toEqual(['/first']);
  });
});
