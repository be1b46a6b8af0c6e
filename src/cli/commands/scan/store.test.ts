/**
 * `keyhole scan` records its scan in the store as it runs, on a real SQLite file and a real
 * PostgreSQL: started and running, each finding as found (redacted), the end state, asset lists.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store, type StoreLocation } from '../../../store/index.js';
import { ENGINES, postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { TcpProxy } from '../../../store/testing/proxy.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

let host: TestHost;
let ws: Workspace;
/** Called when the host is asked for `/cut/found`, before it answers. */
let onCut = () => {};

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path.endsWith('/never')) await new Promise(() => {});
    if (request.path === '/cut/found') onCut();
    if (request.path.endsWith('/found'))
      return { body: `ok found, you sent ${request.headers['x-api-key'] ?? ''}` };
    return { status: 404, body: 'nothing' };
  });
  ws = new Workspace();
  ws.file(
    'found.yaml',
    pathsTemplate('found', ['{{BaseURL}}/found']).replace('severity: info', 'severity: medium'),
  );
  ws.file('never.yaml', pathsTemplate('never', ['{{BaseURL}}/never']));
  ws.file(
    'secrets.yaml',
    'static:\n  - type: header\n    domains-regex: [".*"]\n    headers: [{key: X-Api-Key, value: stored-secret-4c4c}]\n',
  );
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

function dbArg(location: StoreLocation): string {
  return location.engine === 'sqlite' ? location.path : location.url;
}

describe.each(ENGINES)('recording a scan ($engine)', ({ create }) => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await create();
    store = await openStore(db.location);
  });

  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  afterEach(() => {
    host.requests.length = 0;
  });

  const scan = (...argv: string[]) => ws.cli(['scan', '--db', dbArg(db.location), ...argv]);

  it('records a finished scan with its targets, templates, redacted findings and severity counts', async () => {
    const result = await scan(
      '-u',
      `${host.origin}/a`,
      '-u',
      `${host.origin}/b`,
      '-t',
      'found.yaml',
      '-sf',
      'secrets.yaml',
      '--name',
      'nightly',
    );
    expect(result.code, result.err).toBe(0);
    const id = /recorded +scan ([a-z0-9]{20}) in /.exec(result.err)?.[1] ?? '';
    const scanned = await store.scans.get(id);
    expect(scanned).toMatchObject({
      name: 'nightly',
      status: 'finished',
      progress: 100,
      totalTarget: 2,
      totalTemplate: 1,
      totalScan: 2,
      isOss: true,
      templateIds: ['found'],
      severity: { critical: 0, high: 0, medium: 2, low: 0, info: 0, unknown: 0 },
    });
    expect(await store.scans.targets(id)).toEqual([`${host.origin}/a`, `${host.origin}/b`]);
    const [template] = await store.scans.templates(id);
    expect(Buffer.from(template?.encoded ?? '', 'base64').toString('utf8')).toContain('id: found');
    const findings = await store.findings.ofScan(id, { limit: 10 });
    expect(findings.map((f) => f.event['matched-at']).sort()).toEqual([
      `${host.origin}/a/found`,
      `${host.origin}/b/found`,
    ]);
    const stored = JSON.stringify(findings.map((f) => f.event));
    expect(stored).toContain('[REDACTED]');
    expect(stored).not.toContain('stored-secret-4c4c');
  });

  it('has the scan running and its findings stored while it runs, and failed when stopped', async () => {
    const io = memoryIo({ cwd: ws.dir });
    const running = run(
      [
        'scan',
        '--db',
        dbArg(db.location),
        '-u',
        host.origin,
        '-t',
        'found.yaml',
        '-t',
        'never.yaml',
        '-c',
        '1',
        '--name',
        'live',
      ],
      io,
    );
    while (!host.requests.some((r) => r.path === '/never')) await sleep(10);
    const [live] = await store.scans.list((await store.teams.ensure('default')).id, {
      offset: 0,
      limit: 1,
      search: 'live',
    });
    expect(live).toMatchObject({ name: 'live', status: 'running' });
    let findings = await store.findings.ofScan(live?.id ?? '', { limit: 10 });
    for (let i = 0; findings.length === 0 && i < 200; i++) {
      await sleep(10);
      findings = await store.findings.ofScan(live?.id ?? '', { limit: 10 });
    }
    expect(findings.map((f) => f.templateId)).toEqual(['found']);
    io.interrupt();
    expect(await running).toBe(2);
    expect(await store.scans.get(live?.id ?? '')).toMatchObject({
      status: 'failed',
      failureReason: 'interrupted: the scan was stopped before it finished',
      severity: { medium: 1 },
    });
  });

  it('scans the targets of an asset list with --asset and links the scan to it', async () => {
    ws.file('hosts.txt', `# two targets\n${host.origin}/x\n${host.origin}/y\n`);
    const upload = await ws.cli([
      'assets',
      'upload',
      'hosts.txt',
      '--name',
      'prod',
      '--db',
      dbArg(db.location),
    ]);
    const assetId = /asset list ([a-z0-9]{20})/.exec(upload.out)?.[1] ?? '';
    const result = await scan('--asset', assetId, '-t', 'found.yaml', '-u', `${host.origin}/x`);
    expect(result.code, result.err).toBe(0);
    expect(host.requests.map((r) => r.path)).toEqual(['/x/found', '/y/found']);
    const id = /recorded +scan ([a-z0-9]{20})/.exec(result.err)?.[1] ?? '';
    expect(await store.scans.get(id)).toMatchObject({
      assetIds: [assetId],
      totalTarget: 2,
      status: 'finished',
    });
  });

  it('refuses an unknown asset list before any request (exit 1)', async () => {
    const result = await scan('--asset', 'cn0000000000000000zz', '-t', 'found.yaml');
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'error: --asset cn0000000000000000zz: no asset list has that id (keyhole assets list shows them)\n',
    );
    expect(host.requests).toEqual([]);
  });
});

describe('where a scan is recorded', () => {
  it('uses .keyhole/keyhole.db under the current folder by default', async () => {
    const own = new Workspace();
    own.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    const result = await own.cli(['scan', '-u', host.origin, '-t', 'found.yaml']);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toMatch(/recorded +scan [a-z0-9]{20} in SQLite .*\.keyhole\/keyhole\.db\n$/);
    const store = await openStore({
      engine: 'sqlite',
      path: own.path('.keyhole/keyhole.db'),
      isDefault: false,
    });
    const team = await store.teams.ensure('default');
    expect((await store.scans.list(team.id, { offset: 0, limit: 10 })).map((s) => s.status)).toEqual([
      'finished',
    ]);
    await store.close();
    own.remove();
  });

  it('records nothing with --no-store', async () => {
    const own = new Workspace();
    own.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    const result = await own.cli(['scan', '-u', host.origin, '-t', 'found.yaml', '--no-store']);
    expect(result.code, result.err).toBe(0);
    expect(result.err).not.toContain('recorded');
    expect(existsSync(own.path('.keyhole'))).toBe(false);
    own.remove();
  });

  it('refuses --name, --team and --db with --no-store, which would do nothing, before any request', async () => {
    const own = new Workspace();
    own.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    const before = host.requests.length;
    const scan = ['scan', '-u', host.origin, '-t', 'found.yaml', '--no-store'];
    expect(await own.cli([...scan, '--name', 'nightly', '--team', 'appsec'])).toEqual({
      code: 1,
      out: '',
      err: 'error: --no-store records nothing, so --name, --team would do nothing: leave out --name, --team or --no-store\n',
    });
    expect((await own.cli([...scan, '--db', own.path('other.db')])).err).toContain('--db would do nothing');
    expect(host.requests.length).toBe(before);
    own.remove();
  });
});

describe('when the store goes away during a scan', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let url: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    const server = new URL(database.location.url);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    server.host = `127.0.0.1:${proxy.port}`;
    url = server.toString();
  });

  afterAll(async () => {
    onCut = () => {};
    await proxy.close();
    await database.drop();
  });

  it('goes on scanning, prints every finding, says why recording failed and exits 2', async () => {
    onCut = () => proxy.cutOff();
    const targets = ['/before', '/cut', '/after'].flatMap((path) => ['-u', `${host.origin}${path}`]);
    const result = await ws.cli(['scan', '--db', url, ...targets, '-t', 'found.yaml', '-c', '1']);
    expect(result.code).toBe(2);
    expect(result.out.trim().split('\n')).toEqual([
      `[found] [http] [medium] ${host.origin}/before/found`,
      `[found] [http] [medium] ${host.origin}/cut/found`,
      `[found] [http] [medium] ${host.origin}/after/found`,
    ]);
    expect(result.err).toMatch(/error: the scan could not be recorded: .+\n/);
    expect(result.err).toContain('scan failed after');
    expect(result.err).toContain('findings       3: 3 medium');
  });
});
