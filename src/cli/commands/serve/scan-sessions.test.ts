/**
 * `keyhole serve --secrets A B` on SQLite: each scan and retest it runs gets the secrets of the file
 * it names (or its scan used) and no other, and its authentication is recorded as `keyhole scan`
 * records it, against a real loopback target that shows what each request carried.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, hiddenField } from '../../../dashboard/testing/serve.js';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { ENGINES, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';
import { until } from './testing/background.js';

const SECRET_A = 'a-secret-71c0e2';
const SECRET_B = 'b-secret-4f9a13';
const SQLITE = ENGINES.filter((e) => e.engine === 'sqlite');

/** Everything a request carried that could be a secret. */
function carried(request: SeenRequest): string {
  const { authorization, cookie } = request.headers;
  return JSON.stringify({
    authorization,
    cookie,
    a: request.headers['x-api-key'],
    b: request.headers['x-other-key'],
  });
}

describe.each(SQLITE)('secrets of the scans keyhole serve runs on $engine', ({ create }) => {
  let host: TestHost;
  let ws: Workspace;
  let database: TestDatabase;
  let store: Store;
  let writeKey: string;
  let apiUrl: string;
  let serveIo: ReturnType<typeof memoryIo>;
  let serveExit: Promise<number>;

  beforeAll(async () => {
    host = await startHost('127.0.0.1', (request) => {
      if (request.path === '/token') return { status: 401, body: '{"error":"invalid_client"}' };
      return { body: 'ok found' };
    });
    ws = new Workspace();
    mkdirSync(join(ws.dir, 'templates', 'web'), { recursive: true });
    ws.file('templates/web/found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    ws.file(
      'a.yaml',
      `static:\n  - type: header\n    domains: ["${host.authority}"]\n    headers: [{key: X-Api-Key, value: ${SECRET_A}}]\n`,
    );
    ws.file(
      'b.yaml',
      `static:\n  - type: header\n    domains: ["${host.authority}"]\n    headers: [{key: X-Other-Key, value: ${SECRET_B}}]\n`,
    );
    ws.file(
      'failing.yaml',
      `dynamic:
  - oauth2:
      token-url: ${host.origin}/token
      grant: client_credentials
      client-id: scanner
      client-secret: not-the-right-one
      auth-method: body
    type: bearertoken
    domains: ["${host.authority}"]
`,
    );
    database = await create();
    const db = database.location.engine === 'sqlite' ? database.location.path : database.location.url;
    expect((await ws.cli(['db', 'migrate', '--db', db])).code).toBe(0);
    store = await openStore(database.location);
    const team = await store.teams.ensure('default');
    writeKey = (await store.keys.create({ teamId: team.id, name: 'ci', scope: 'write' })).secret;
    serveIo = memoryIo({ cwd: ws.dir });
    serveExit = run(
      [
        'serve',
        '--db',
        db,
        '--port',
        '0',
        '--templates-dir',
        'templates',
        '--secrets',
        'a.yaml',
        'b.yaml',
        'failing.yaml',
      ],
      serveIo,
    );
    apiUrl = await until(async () => /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(serveIo.out())?.[1]);
  }, 60_000);

  afterAll(async () => {
    serveIo?.interrupt();
    await serveExit;
    await store?.close();
    await database?.drop();
    await host?.close();
    ws?.remove();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        'X-Api-Key': writeKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** Starts a scan of /found and waits for its end; the requests the target saw for it. */
  const scan = async (secretFile?: string) => {
    const seenBefore = host.requests.length;
    const started = await api('POST', '/v1/scans', {
      targets: [host.origin],
      templates: ['web'],
      ...(secretFile === undefined ? {} : { secret_file: secretFile }),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.id as string;
    const ended = await until(async () => {
      const now = await api('GET', `/v1/scans/${id}`);
      return now.body.status === 'finished' || now.body.status === 'failed' ? now.body : undefined;
    });
    return { id, ended, seen: host.requests.slice(seenBefore) };
  };
  const retest = async (scanId: string) => {
    const results = await api('GET', `/v1/scans/result/${scanId}?limit=10`);
    const vulnId = (results.body.data as { vuln_id: string }[])[0]?.vuln_id ?? '';
    const seenBefore = host.requests.length;
    const queued = await api('POST', `/v1/scans/${vulnId}/retest`);
    expect(queued.status, JSON.stringify(queued.body)).toBe(200);
    const done = await until(async () => {
      const now = await api('GET', `/v1/retest/requests/${queued.body.request_id as string}`);
      return now.body.status === 'done' || now.body.status === 'failed' ? now.body : undefined;
    });
    expect(done.status, JSON.stringify(done)).toBe('done');
    return host.requests.slice(seenBefore);
  };

  it('sends no secret at all for a scan that names no secret file, nor for a retest of its finding', async () => {
    const { ended, seen } = await scan();
    expect(ended.status).toBe('finished');
    expect(seen.map((r) => r.path)).toEqual(['/found']);
    expect(seen.map(carried)).toEqual(['{}']);
    const retested = await retest(ended.scan_id as string);
    expect(retested.map((r) => r.path)).toEqual(['/found']);
    expect(retested.map(carried)).toEqual(['{}']);
  });

  it("sends a scan naming one file that file's secret, never another file's, and so does its retest", async () => {
    const a = await scan('a.yaml');
    expect(a.ended.status).toBe('finished');
    expect(a.seen.map(carried)).toEqual([JSON.stringify({ a: SECRET_A })]);
    const b = await scan('b.yaml');
    expect(b.seen.map(carried)).toEqual([JSON.stringify({ b: SECRET_B })]);
    // The two entries have one kind and scope (one fingerprint): the label tells the files apart.
    expect((await retest(a.id)).map(carried)).toEqual([JSON.stringify({ a: SECRET_A })]);
    expect((await retest(b.id)).map(carried)).toEqual([JSON.stringify({ b: SECRET_B })]);
    // Its authentication is recorded as keyhole scan records it: one request, with a's secret.
    const auth = (await store.authentication.of([a.id])).get(a.id);
    expect(auth?.requests).toBe(1);
    expect(auth?.authenticated).toBe(1);
    expect(auth?.entries.filter((e) => e.requests > 0).map((e) => e.label)).toEqual(['static[0] of a.yaml']);
    expect(serveIo.out() + serveIo.err()).not.toContain(SECRET_A);
    expect(serveIo.out() + serveIo.err()).not.toContain(SECRET_B);
  });

  it("runs the dashboard's Rescan with the secret file the scan used, or none when it used none", async () => {
    const browser = new Browser(apiUrl);
    expect((await browser.signIn(writeKey)).status).toBe(303);
    const rescan = async (scanId: string) => {
      const page = await browser.get(`/scans/${scanId}`);
      const seenBefore = host.requests.length;
      const answer = await browser.post(`/scans/${scanId}/rescan`, { csrf: hiddenField(page.body, 'csrf') });
      expect(answer.status).toBe(303);
      const again = /^\/scans\/([0-9a-v]{20})$/.exec(answer.headers.get('location') ?? '')?.[1] ?? '';
      await until(async () => {
        const now = await api('GET', `/v1/scans/${again}`);
        return now.body.status === 'finished' ? now : undefined;
      });
      return host.requests.slice(seenBefore).map(carried);
    };
    expect(await rescan((await scan('b.yaml')).id)).toEqual([JSON.stringify({ b: SECRET_B })]);
    expect(await rescan((await scan()).id)).toEqual(['{}']);
  });

  it('fails a scan whose login fails, saying why, as keyhole scan does, and the API shows it', async () => {
    const { id, ended, seen } = await scan('failing.yaml');
    expect(ended.status).toBe('failed');
    expect(ended.failure_reason).toMatch(/^authentication failed: dynamic\[0\] of failing\.yaml: .*not sent/);
    expect(seen.map((r) => r.path)).toEqual(['/token']);
    const auth = (await store.authentication.of([id])).get(id);
    expect(auth?.entries.map((e) => [e.label, e.loginFailures, e.refused])).toEqual([
      ['dynamic[0] of failing.yaml', 1, 1],
    ]);
    // A scan naming no file, started after it, is not touched by that login.
    expect((await scan()).ended.status).toBe('finished');
  });
});
