/**
 * `keyhole scan --queue` and `keyhole worker` on a real PostgreSQL with real target servers: a
 * queued scan split in chunks, run by two workers sharing them, ends as a plain scan would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueScan } from '../../../queue/index.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Scan, type Store } from '../../../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const SECRET = 'worker-secret-7d1e';
let one: TestHost;
let two: TestHost;
let ws: Workspace;
let db: TestDatabase;
let store: Store;
let url: string;

beforeAll(async () => {
  const handler = async (request: { path: string; headers: Readonly<Record<string, string>> }) => {
    await sleep(50);
    if (request.path.startsWith('/vault/'))
      return request.headers['x-api-key'] === SECRET ? { body: 'ok vault' } : { status: 401, body: 'no' };
    if (request.path.endsWith('/found'))
      return { body: `ok found, you sent ${request.headers['x-api-key'] ?? 'nothing'}` };
    return { status: 404, body: 'nothing' };
  };
  [one, two] = await Promise.all([startHost('127.0.0.1', handler), startHost('127.0.0.2', handler)]);
  ws = new Workspace();
  ws.file(
    'found.yaml',
    pathsTemplate('found', ['{{BaseURL}}/found']).replace('severity: info', 'severity: high'),
  );
  ws.file(
    'secrets.yaml',
    `static:\n  - type: header\n    domains: ["${one.authority}"]\n    headers: [{key: X-Api-Key, value: ${SECRET}}]\n`,
  );
  const targets = Array.from({ length: 10 }, (_, i) => `${(i % 2 === 0 ? one : two).origin}/t${i}`);
  ws.file('targets.txt', `${targets.join('\n')}\n`);
  db = await postgresTestDatabase();
  if (db.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
  url = db.location.url;
  store = await openStore(db.location);
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await Promise.all([one?.close(), two?.close()]);
  ws?.remove();
});

/** `keyhole worker` in-process until `stop()`; its exit code and output. */
function worker(...argv: string[]) {
  const io = memoryIo({ cwd: ws.dir });
  const exit = run(['worker', '--db', url, '--poll', '0.05', ...argv], io);
  return {
    io,
    async stop(): Promise<number> {
      io.interrupt();
      return exit;
    },
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

async function findingsOf(scanId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const f of store.findings.allOfScan(scanId))
    found.push(`${f.templateId} ${f.event['matched-at']}`);
  return found.sort();
}

describe('keyhole scan --queue and keyhole worker', () => {
  it('queues a scan in chunks that two workers share, ending with the findings of a plain scan', async () => {
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-l',
      'targets.txt',
      '-t',
      'found.yaml',
      '--chunk-size',
      '2',
      '--name',
      'queued',
      '-sf',
      'secrets.yaml',
    ]);
    expect(queued.err).toContain('in 5 chunks of up to 2 targets');
    expect(queued.code).toBe(0);
    const scanId = queued.out.trim();
    expect(scanId).toMatch(/^[a-z0-9]{20}$/);
    expect(await store.scans.require(scanId)).toMatchObject({
      status: 'queued',
      isCloud: true,
      isOss: false,
      totalTarget: 10,
      totalTemplate: 1,
      totalScan: 10,
      progress: 0,
    });
    expect((await store.chunks.ofScan(scanId)).map((c) => c.state)).toEqual(Array(5).fill('pending'));

    const a = worker('-sf', 'secrets.yaml', '-c', '1');
    const b = worker('-sf', 'secrets.yaml', '-c', '1');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    const doneBy = [a, b].map((w) => (w.io.err().match(/\[INF\] finished chunk/g) ?? []).length);
    expect(doneBy[0]).toBeGreaterThan(0);
    expect(doneBy[1]).toBeGreaterThan(0);
    expect(doneBy[0]! + doneBy[1]!).toBe(5);
    expect((a.io.err() + b.io.err()).match(/\[INF\] scan [a-z0-9]{20} finished/g)).toHaveLength(1);

    const plain = await ws.cli([
      'scan',
      '--db',
      url,
      '-l',
      'targets.txt',
      '-t',
      'found.yaml',
      '--name',
      'plain',
      '-sf',
      'secrets.yaml',
    ]);
    expect(plain.code).toBe(0);
    const team = await store.teams.ensure('default');
    const [plainScan] = (await store.scans.list(team.id, { offset: 0, limit: 1, search: 'plain' })) as [Scan];
    const finished = await store.scans.require(scanId);
    expect(finished).toMatchObject({
      status: 'finished',
      progress: 100,
      isCloud: true,
      totalScan: 10,
      severity: { ...plainScan.severity, high: 10 },
    });
    expect(finished.completedAt).not.toBeNull();
    expect(await findingsOf(scanId)).toEqual(await findingsOf(plainScan.id));
    expect((await store.chunks.ofScan(scanId)).every((c) => c.state === 'done' && c.attempts === 1)).toBe(
      true,
    );
  });

  it("applies the worker's secrets only to matching hosts and stores them redacted", async () => {
    one.requests.length = 0;
    two.requests.length = 0;
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-l',
      'targets.txt',
      '-t',
      'found.yaml',
      '--name',
      'secrets',
    ]);
    const scanId = queued.out.trim();
    const w = worker('-sf', 'secrets.yaml');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await w.stop()).toBe(0);
    expect(one.requests.length).toBe(5);
    expect(one.requests.every((r) => r.headers['x-api-key'] === SECRET)).toBe(true);
    expect(two.requests.length).toBe(5);
    expect(two.requests.some((r) => r.raw.includes(SECRET))).toBe(false);
    const events: string[] = [];
    for await (const f of store.findings.allOfScan(scanId)) events.push(JSON.stringify(f.event));
    expect(events).toHaveLength(10);
    expect(events.join('\n')).not.toContain(SECRET);
    expect(events.filter((e) => e.includes('you sent [REDACTED]'))).toHaveLength(5);
    expect(w.io.err()).not.toContain(SECRET);
  });

  it("keeps a worker given --team to that team's scans", async () => {
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-u',
      one.origin,
      '-t',
      'found.yaml',
      '--team',
      'red',
    ]);
    const scanId = queued.out.trim();
    const blue = worker('--team', 'blue');
    await sleep(400);
    expect((await store.scans.require(scanId)).status).toBe('queued');
    const red = worker('--team', 'red');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await blue.stop()).toBe(0);
    expect(await red.stop()).toBe(0);
    expect(blue.io.err()).toContain('worker stopped: 0 chunks done');
    const team = await store.teams.ensure('red');
    expect((await store.findings.ofScan(scanId, { limit: 10 }))[0]?.teamId).toBe(team.id);
  });

  it('fails the scan, with the reason, once a chunk has failed --max-attempts times', async () => {
    const team = await store.teams.ensure('default');
    const scan = await enqueueScan(store, {
      teamId: team.id,
      name: 'broken',
      targets: [one.origin],
      templates: [
        { id: 'broken', path: '/nowhere/broken.yaml', content: 'id: broken\n', selfContained: false },
      ],
      assetIds: [],
      chunkSize: 10,
    });
    const w = worker('--max-attempts', '2');
    await until(async () => (await store.scans.require(scan.id)).status === 'failed');
    expect(await w.stop()).toBe(0);
    expect((await store.scans.require(scan.id)).failureReason).toMatch(
      /^chunk 1 of 1 failed 2 times: template broken: the stored template does not parse: /,
    );
    expect(w.io.err()).toContain('it will be tried again');
    expect(w.io.err()).toMatch(/scan [a-z0-9]{20} failed: chunk 1\/1/);
    expect((await store.chunks.ofScan(scan.id))[0]).toMatchObject({ state: 'failed', attempts: 2 });
  });

  it('leaves a scan queued with secrets to workers that have them, saying why it waits, and records its authentication', async () => {
    one.requests.length = 0;
    ws.file(
      'elsewhere.yaml',
      `static:\n  - type: header\n    domains: ["${two.authority}"]\n    headers: [{key: X-Api-Key, value: other-key-31}]\n`,
    );
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-u',
      `${one.origin}/p`,
      '-t',
      'found.yaml',
      '--name',
      'planned',
      '-sf',
      'secrets.yaml',
    ]);
    expect(queued.code, queued.err).toBe(0);
    expect(queued.err).toContain('only workers whose secret files have static[0] of secrets.yaml run it');
    const scanId = queued.out.trim();
    const bare = worker();
    const elsewhere = worker('-sf', 'elsewhere.yaml');
    const waits =
      /^waiting for a worker whose secret files have static\[0\] of secrets\.yaml: worker \S+ lacks it$/;
    await until(async () => waits.test((await store.scans.require(scanId)).failureReason));
    await sleep(200);
    expect((await store.scans.require(scanId)).status).toBe('queued');
    expect(one.requests).toEqual([]);
    for (const w of [bare, elsewhere]) {
      expect(w.io.err()).toContain(
        `[WRN] not taking scan ${scanId}: it was planned with static[0] of secrets.yaml, which this worker's secret files lack`,
      );
    }
    const good = worker('-sf', 'secrets.yaml');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    for (const w of [bare, elsewhere, good]) expect(await w.stop()).toBe(0);
    expect(one.requests.map((r) => r.headers['x-api-key'])).toEqual([SECRET]);
    const listed = await ws.cli(['scans', 'list', '--json', '--db', url, '--search', 'planned']);
    const line = JSON.parse(listed.out.trim());
    expect(line.failure_reason).toBeUndefined();
    expect(line.authentication).toMatchObject({
      requests: 1,
      authenticated: 1,
      entries: [
        { entry: 'static[0] of secrets.yaml', kind: 'static', planned: true, requests: 1, refused: 0 },
      ],
    });
  });

  it('fails a chunk whose login failed instead of running it unauthenticated, and the scan once it failed --max-attempts times', async () => {
    one.requests.length = 0;
    ws.file(
      'refused-login.yaml',
      `id: refused-login\ninfo: {name: l, author: k, severity: info}\nhttp:\n  - method: POST\n    path: ["{{BaseURL}}/login"]\n    body: "user={{username}}"\n    matchers:\n      - type: status\n        status: [200]\n    extractors:\n      - type: regex\n        name: session\n        regex: ["[a-z]+"]\n`,
    );
    ws.file(
      'dynamic.yaml',
      `dynamic:\n  - template: refused-login.yaml\n    variables: [{name: username, value: admin}]\n    type: bearertoken\n    domains: ["${one.authority}"]\n    token: "{{session}}"\n`,
    );
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-u',
      `${one.origin}/d`,
      '-t',
      'found.yaml',
      '--name',
      'refused',
      '-sf',
      'dynamic.yaml',
    ]);
    expect(queued.code, queued.err).toBe(0);
    const scanId = queued.out.trim();
    const w = worker('-sf', 'dynamic.yaml', '--max-attempts', '2');
    await until(async () => (await store.scans.require(scanId)).status === 'failed');
    expect(await w.stop()).toBe(0);
    expect((await store.scans.require(scanId)).failureReason).toMatch(
      /^chunk 1 of 1 failed 2 times: authentication failed: dynamic\[0\] of dynamic\.yaml: the login template refused-login did not match: .*; 1 request in its scope was not sent$/,
    );
    // Two logins (one per try), and nothing else: no template request went out without the session.
    expect(one.requests.map((r) => r.path)).toEqual(['/login', '/login']);
    expect(w.io.err().match(/\[ERR\] login failed for dynamic\[0\] of dynamic\.yaml/g)).toHaveLength(2);
  });

  it('fails a chunk whose static secret failed its verify: check, checking again on the next try, sending nothing else', async () => {
    one.requests.length = 0;
    ws.file(
      'checked-key.yaml',
      `static:\n  - type: header\n    domains: ["${one.authority}"]\n    headers: [{key: X-Api-Key, value: revoked-key-19}]\n    verify: {url: "${one.origin}/vault/me"}\n`,
    );
    const queued = await ws.cli(
      ['scan', '--queue', '--db', url, '-u', `${one.origin}/vault/a`, '-t', 'found.yaml'].concat([
        '--name',
        'checked',
        '-sf',
        'checked-key.yaml',
      ]),
    );
    expect(queued.code, queued.err).toBe(0);
    const scanId = queued.out.trim();
    const w = worker('-sf', 'checked-key.yaml', '--max-attempts', '2');
    await until(async () => (await store.scans.require(scanId)).status === 'failed');
    expect(await w.stop()).toBe(0);
    expect((await store.scans.require(scanId)).failureReason).toBe(
      `chunk 1 of 1 failed 2 times: authentication failed: static[0] of checked-key.yaml: the secret check ${one.origin}/vault/me failed: its status is 401, not 200; 1 request in its scope was not sent`,
    );
    expect(one.requests.map((r) => r.path)).toEqual(['/vault/me', '/vault/me']);
    expect(w.io.err().match(/\[ERR\] static\[0\] of checked-key\.yaml: the secret check /g)).toHaveLength(2);
    expect(w.io.err()).not.toContain('revoked-key-19');
  });

  it('fails a chunk whose every answer turned its secret away (401), and the scan once it failed --max-attempts times', async () => {
    ws.file(
      'old-key.yaml',
      `static:\n  - type: header\n    domains: ["${one.authority}"]\n    headers: [{key: X-Api-Key, value: revoked-key-08}]\n`,
    );
    const queued = await ws.cli(
      ['scan', '--queue', '--db', url, '-u', `${one.origin}/vault/a`, '-t', 'found.yaml'].concat([
        '--name',
        'revoked',
        '-sf',
        'old-key.yaml',
      ]),
    );
    expect(queued.code, queued.err).toBe(0);
    const scanId = queued.out.trim();
    const w = worker('-sf', 'old-key.yaml', '--max-attempts', '1');
    await until(async () => (await store.scans.require(scanId)).status === 'failed');
    expect(await w.stop()).toBe(0);
    expect((await store.scans.require(scanId)).failureReason).toMatch(
      /^chunk 1 of 1 failed once: authentication failed: static\[0\] of old-key\.yaml: the target refused its secret on the 1 request that carried it \(401 Unauthorized\)/,
    );
    const listed = await ws.cli(['scans', 'list', '--json', '--db', url, '--search', 'revoked']);
    expect(JSON.parse(listed.out.trim()).authentication.entries).toEqual([
      expect.objectContaining({ entry: 'static[0] of old-key.yaml', requests: 1, rejected: 1 }),
    ]);
  });

  it('notes the bodies a chunk cut at their limit, and stores its findings on them marked', async () => {
    ws.file('cut.yaml', pathsTemplate('cut', ['{{BaseURL}}/found'], '    max-size: 10\n'));
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-u',
      `${one.origin}/a`,
      '-u',
      `${two.origin}/b`,
      '-t',
      'cut.yaml',
    ]);
    expect(queued.code).toBe(0);
    const scanId = queued.out.trim();
    const w = worker();
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await w.stop()).toBe(0);
    expect(w.io.err()).toMatch(
      /\[WRN\] chunk 1\/1 of scan [a-z0-9]{20}: 2 responses were cut at 10 bytes, their body limit: .* "response-truncated": true/,
    );
    const marks: unknown[] = [];
    for await (const f of store.findings.allOfScan(scanId)) marks.push(f.event['response-truncated']);
    expect(marks).toEqual([true, true]);
  });

  it('stops cleanly on a signal while idle, exiting 0', async () => {
    const w = worker();
    await sleep(200);
    expect(await w.stop()).toBe(0);
    expect(w.io.err()).toContain('worker stopped: 0 chunks done');
  });

  it('queues a failed queued scan again with -resume, and its workers run only the chunks not done', async () => {
    one.requests.length = 0;
    two.requests.length = 0;
    const login = (name: string, path: string) =>
      `id: ${name}\ninfo: {name: l, author: k, severity: info}\nhttp:\n  - method: POST\n    path: ["{{BaseURL}}${path}"]\n    matchers:\n      - type: status\n        status: [200]\n    extractors:\n      - type: regex\n        name: session\n        regex: ["[a-z]+"]\n`;
    const dynamic = (template: string) =>
      `dynamic:\n  - template: ${template}\n    variables: [{name: username, value: admin}]\n    type: bearertoken\n    domains: ["${one.authority}"]\n    token: "{{session}}"\n`;
    ws.file('login-refused.yaml', login('login-refused', '/login'));
    ws.file('login-works.yaml', login('login-works', '/found'));
    ws.file('refusing.yaml', dynamic('login-refused.yaml'));
    ws.file('working.yaml', dynamic('login-works.yaml'));
    ws.file(
      'resumed-targets.txt',
      `${two.origin}/r0\n${two.origin}/r1\n${one.origin}/r2\n${one.origin}/r3\n`,
    );
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-l',
      'resumed-targets.txt',
      '-t',
      'found.yaml',
      '--chunk-size',
      '2',
      '--name',
      'resumed',
      '-sf',
      'refusing.yaml',
    ]);
    expect(queued.code, queued.err).toBe(0);
    const scanId = queued.out.trim();
    const failing = worker('-sf', 'refusing.yaml', '--max-attempts', '1', '-c', '1');
    await until(async () => (await store.scans.require(scanId)).status === 'failed');
    expect(await failing.stop()).toBe(0);
    await until(async () => (await store.chunks.ofScan(scanId)).every((c) => c.state !== 'running'));
    expect((await store.chunks.ofScan(scanId)).map((c) => c.state)).toEqual(['done', 'failed']);
    const before = await store.scans.require(scanId);
    const firstRuns = two.requests.map((r) => r.path).sort();
    expect(firstRuns).toEqual(['/r0/found', '/r1/found']);

    const resumed = await ws.cli(['scan', '-resume', scanId, '--db', url, '-sf', 'working.yaml']);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toBe(`${scanId}\n`);
    expect(resumed.err).toContain(
      `queued scan ${scanId} again: 1 chunk to run, 1 chunk done before are not run again; keyhole worker with the same --db runs it`,
    );
    expect(resumed.err).toContain(
      '-sf is not used: the workers that take the scan read their own secret files',
    );
    expect(await store.scans.require(scanId)).toMatchObject({ status: 'queued', failureReason: '' });
    expect((await store.chunks.ofScan(scanId)).map((c) => [c.state, c.attempts])).toEqual([
      ['done', 1],
      ['pending', 0],
    ]);

    const waiting = await ws.cli(['scan', '-resume', scanId, '--db', url]);
    expect(waiting.code).toBe(1);
    expect(waiting.err).toContain(
      `-resume ${scanId}: the scan is queued on the workers; any keyhole worker with the same --db goes on with it`,
    );

    const working = worker('-sf', 'working.yaml', '-c', '1');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await working.stop()).toBe(0);
    expect(two.requests.map((r) => r.path).sort()).toEqual(firstRuns);
    expect(await findingsOf(scanId)).toEqual(
      ['r0', 'r1', 'r2', 'r3'].map((t) => `found ${(t < 'r2' ? two : one).origin}/${t}/found`).sort(),
    );
    expect((await store.scans.require(scanId)).startedAt).toBe(before.startedAt);

    const again = await ws.cli(['scan', '-resume', scanId, '--db', url]);
    expect(again.code).toBe(1);
    expect(again.err).toContain(
      `-resume ${scanId}: the scan finished; run it again as a new scan with --rescan`,
    );
  });

  it('runs a rescan of a queued scan on the workers too', async () => {
    const team = await store.teams.ensure('default');
    const [original] = (await store.scans.list(team.id, { offset: 0, limit: 1, search: 'queued' })) as [Scan];
    const queued = await ws.cli(['scan', '--queue', '--rescan', original.id, '--db', url]);
    expect(queued.code).toBe(0);
    const scanId = queued.out.trim();
    expect(await store.scans.require(scanId)).toMatchObject({
      status: 'queued',
      isRescan: true,
      name: 'queued',
    });
    const w = worker('-sf', 'secrets.yaml');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await w.stop()).toBe(0);
    expect(await findingsOf(scanId)).toEqual(await findingsOf(original.id));
    expect((await store.scans.require(original.id)).rescanCount).toBe(1);
  });
});

describe('keyhole scan --queue refuses', () => {
  it('an SQLite store, with a message naming PostgreSQL, and records nothing', async () => {
    const result = await ws.cli([
      'scan',
      '--queue',
      '-u',
      one.origin,
      '-t',
      'found.yaml',
      '--db',
      'local.db',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^error: --queue needs a PostgreSQL store, shared with the workers: give --db postgres:\/\//,
    );
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it('flags that belong to the workers', async () => {
    const result = await ws.cli([
      'scan',
      '--queue',
      '-u',
      one.origin,
      '-t',
      'found.yaml',
      '--db',
      url,
      '-H',
      'X-A: b',
      '-rl',
      '5',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('give -H, -rl to keyhole worker instead');
  });

  it('a template with errors before anything is queued', async () => {
    ws.file(
      'broken.yaml',
      'id: broken\ninfo: {name: b, author: k, severity: info}\nhttp:\n  - method: GET\n    path: 3\n',
    );
    const team = await store.teams.ensure('default');
    const before = (await store.scans.list(team.id, { offset: 0, limit: 100 })).length;
    const result = await ws.cli(['scan', '--queue', '-u', one.origin, '-t', 'broken.yaml', '--db', url]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('1 template has errors');
    expect((await store.scans.list(team.id, { offset: 0, limit: 100 })).length).toBe(before);
  });

  it('keyhole worker on an SQLite store', async () => {
    const io = memoryIo({ cwd: ws.dir });
    expect(await run(['worker', '--db', 'local.db'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: keyhole worker needs a PostgreSQL store/);
  });
});
