/**
 * `keyhole scan --rescan SCAN_ID`: a new scan of the stored scan's targets × templates (the
 * templates as the store kept their text), marked as a rescan and counted on the original; on a
 * real SQLite file and a real PostgreSQL, read back through the real API.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../../../api/testing/serve.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import type { Store, StoreLocation } from '../../../store/index.js';
import { ENGINES } from '../../../store/testing/databases.js';

let host: TestHost;
let ws: Workspace;

const ALPHA = pathsTemplate('alpha', ['{{BaseURL}}/alpha']);
const BETA = pathsTemplate('beta', ['{{BaseURL}}/beta']);

beforeAll(async () => {
  host = await startHost('127.0.0.1', (request) =>
    request.path.endsWith('/alpha') ? { body: `ok ${request.headers['x-team'] ?? ''}` } : { status: 404 },
  );
  ws = new Workspace();
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

afterEach(() => {
  host.requests.length = 0;
});

function dbArg(location: StoreLocation): string {
  return location.engine === 'sqlite' ? location.path : location.url;
}

const scanIdOf = (err: string) => /recorded +scan ([a-z0-9]{20}) in /.exec(err)?.[1] ?? '';

describe.each(ENGINES)('keyhole scan --rescan ($engine)', ({ create }) => {
  let served: ServedDatabase;
  let store: Store;
  let api: RunningApi;
  let key: string;

  const keyhole = (...argv: string[]) => ws.cli([...argv, '--db', dbArg(served.database.location)]);

  beforeAll(async () => {
    served = await serveDatabase(await create(), { cache: false });
    ({ store, api } = served);
    key = (await keyhole('keys', 'create', '--name', 'dashboard')).out.trim();
  });

  afterAll(() => served.close());

  it('runs the same targets × templates as a new scan marked as a rescan, counted on the original', async () => {
    ws.file('alpha.yaml', ALPHA);
    ws.file('beta.yaml', BETA);
    const targets = [`${host.origin}/one`, `${host.origin}/two`];
    const first = await keyhole(
      'scan',
      ...targets.flatMap((t) => ['-u', t]),
      '-t',
      'alpha.yaml',
      '-t',
      'beta.yaml',
      '--name',
      'nightly',
    );
    expect(first.code, first.err).toBe(0);
    const originalId = scanIdOf(first.err);
    const scanned = host.requests.map((r) => r.path).sort();
    host.requests.length = 0;
    // What became of the files since does not matter: the rescan runs what the scan ran.
    ws.file('alpha.yaml', pathsTemplate('alpha', ['{{BaseURL}}/edited']));
    ws.file('beta.yaml', 'not a template any more');

    const rescan = await keyhole('scan', '--rescan', originalId, '-H', 'X-Team: blue', '-c', '1');
    expect(rescan.code, rescan.err).toBe(0);
    expect(host.requests.map((r) => r.path).sort()).toEqual(scanned);
    expect(scanned).toEqual(['/one/alpha', '/one/beta', '/two/alpha', '/two/beta']);
    expect(rescan.out.split('\n').filter((l) => l !== '')).toEqual([
      `[alpha] [http] [info] ${host.origin}/one/alpha`,
      `[alpha] [http] [info] ${host.origin}/two/alpha`,
    ]);
    expect(host.requests.every((r) => r.headers['x-team'] === 'blue')).toBe(true);
    const rescanId = scanIdOf(rescan.err);
    expect(rescanId).not.toBe(originalId);

    const original = await store.scans.require(originalId);
    const again = await store.scans.require(rescanId);
    expect(original).toMatchObject({ isRescan: false, rescanCount: 1 });
    expect(again).toMatchObject({
      name: 'nightly',
      status: 'finished',
      isRescan: true,
      rescanOf: originalId,
      totalTarget: 2,
      totalTemplate: 2,
      totalScan: 4,
      templateIds: ['alpha', 'beta'],
    });
    expect(await store.scans.targets(rescanId)).toEqual(await store.scans.targets(originalId));
    expect(await store.scans.templates(rescanId)).toEqual(await store.scans.templates(originalId));
    expect((await store.findings.ofScan(rescanId, { limit: 10 })).map((f) => f.event['matched-at'])).toEqual(
      expect.arrayContaining([`${host.origin}/one/alpha`, `${host.origin}/two/alpha`]),
    );

    const second = await keyhole('scan', '--rescan', originalId, '--name', 'nightly, again');
    expect(second.code, second.err).toBe(0);
    const response = await api.get('/v1/scans?offset=0&limit=10', key);
    const byId = new Map(response.body.data.map((s: { scan_id: string }) => [s.scan_id, s]));
    expect(byId.get(originalId)).toMatchObject({ is_rescan: false, rescan_count: 2 });
    expect(byId.get(rescanId)).toMatchObject({ is_rescan: true, rescan_count: 0, name: 'nightly' });
    expect(byId.get(scanIdOf(second.err))).toMatchObject({ is_rescan: true, name: 'nightly, again' });
  });

  it('refuses an unknown scan, another team’s scan, and targets or templates given with it (exit 1)', async () => {
    ws.file('alpha.yaml', ALPHA);
    const theirs = await keyhole('scan', '-u', host.origin, '-t', 'alpha.yaml', '--team', 'blue');
    const theirId = scanIdOf(theirs.err);
    host.requests.length = 0;
    const unknown = 'cn00000000000000000v';
    const missing = await keyhole('scan', '--rescan', unknown);
    expect(missing).toEqual({
      code: 1,
      out: '',
      err: `error: --rescan ${unknown}: no scan has that id (GET /v1/scans lists them)\n`,
    });
    const other = await keyhole('scan', '--rescan', theirId);
    expect(other.err.replace(theirId, unknown)).toBe(missing.err);
    const mixed = await keyhole('scan', '--rescan', theirId, '-u', host.origin, '-t', 'alpha.yaml');
    expect(mixed.err).toBe(
      'error: --rescan runs the targets and templates of the stored scan; leave out -u, -t\n',
    );
    expect(host.requests).toEqual([]);
    expect((await store.scans.require(theirId)).rescanCount).toBe(0);
  });
});
