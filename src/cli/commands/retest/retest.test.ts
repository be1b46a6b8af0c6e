/**
 * `keyhole retest` end to end on a real SQLite file and a real PostgreSQL: a scan of a fixture app
 * on 127.0.0.1 records findings, the app is fixed (or goes away), the findings are retested, and
 * the retest results are read back through the real API with a real key.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retestProblems } from '../../../api/testing/fields.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../../../api/testing/serve.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store, type StoreLocation } from '../../../store/index.js';
import {
  ENGINES,
  postgresTestDatabase,
  sqliteTestDatabase,
  type TestDatabase,
} from '../../../store/testing/databases.js';
import { TcpProxy } from '../../../store/testing/proxy.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const SECRET = 'retest-secret-7f7f';

/** The app: a debug page and an admin panel while it is vulnerable, nothing once it is fixed. */
const app = { vulnerable: true, adminHangs: false };
/** Called when the app is asked for /admin, before it answers. */
let onAdmin = () => {};

let host: TestHost;
let ws: Workspace;

const DEBUG_TEMPLATE = `id: debug-page
info:
  name: Debug page exposed
  author: keyhole
  severity: high
  classification:
    cwe-id: CWE-215
http:
  - method: GET
    path: ["{{BaseURL}}/debug"]
    matchers:
      - type: word
        name: debug
        words: ["DEBUG=on"]
`;

const ADMIN_TEMPLATE = `id: admin-panel
info: {name: Admin panel, author: keyhole, severity: medium}
http:
  - method: GET
    path: ["{{BaseURL}}/admin"]
    matchers:
      - type: word
        words: ["admin panel"]
`;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path.endsWith('/admin')) onAdmin();
    if (app.adminHangs && request.path.endsWith('/admin')) await new Promise(() => {});
    const seen = `you sent ${request.headers['x-api-key'] ?? 'no key'}`;
    if (!app.vulnerable) return { status: 404, body: `nothing here; ${seen}` };
    if (request.path.endsWith('/debug')) return { body: `DEBUG=on; ${seen}` };
    if (request.path.endsWith('/admin')) return { body: `admin panel; ${seen}` };
    return { status: 404, body: 'nothing' };
  });
  ws = new Workspace();
  ws.file('debug.yaml', DEBUG_TEMPLATE);
  ws.file('admin.yaml', ADMIN_TEMPLATE);
  ws.file(
    'secrets.yaml',
    `static:\n  - type: header\n    domains-regex: [".*"]\n    headers: [{key: X-Api-Key, value: ${SECRET}}]\n`,
  );
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

afterEach(() => {
  app.vulnerable = true;
  app.adminHangs = false;
  onAdmin = () => {};
  host.requests.length = 0;
});

function dbArg(location: StoreLocation): string {
  return location.engine === 'sqlite' ? location.path : location.url;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const scanIdOf = (err: string) => /recorded +scan ([a-z0-9]{20}) in /.exec(err)?.[1] ?? '';

describe.each(ENGINES)('keyhole retest ($engine)', ({ create }) => {
  let served: ServedDatabase;
  let store: Store;
  let api: RunningApi;
  let key: string;

  const keyhole = (...argv: string[]) => ws.cli([...argv, '--db', dbArg(served.database.location)]);

  /** Scans the app with both templates and the secret file; returns the scan id. */
  async function scanApp(...extra: string[]): Promise<string> {
    const scan = await keyhole(
      'scan',
      '-u',
      host.origin,
      '-t',
      'debug.yaml',
      '-t',
      'admin.yaml',
      '-sf',
      'secrets.yaml',
      ...extra,
    );
    expect(scan.code, scan.err).toBe(0);
    return scanIdOf(scan.err);
  }

  beforeAll(async () => {
    served = await serveDatabase(await create(), { cache: false });
    ({ store, api } = served);
    key = (await keyhole('keys', 'create', '--name', 'dashboard')).out.trim();
  });

  afterAll(() => served.close());

  it('records matched while the app is vulnerable and not_matched once it is fixed, as /v1/retest shows', async () => {
    const scanId = await scanApp();
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    expect(findings.map((f) => f.templateId).sort()).toEqual(['admin-panel', 'debug-page']);
    const idOf = (template: string) => findings.find((f) => f.templateId === template)?.id ?? '';

    const still = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml');
    expect(still.code, still.err).toBe(0);
    expect(lines(still.out).sort()).toEqual(
      [
        `[${idOf('admin-panel')}] admin-panel ${host.origin} → matched`,
        `[${idOf('debug-page')}] debug-page ${host.origin} → matched`,
      ].sort(),
    );
    expect(still.err).toContain('matched     2 (open)');
    for (const f of findings) expect((await store.findings.get(f.id))?.vulnStatus).toBe('open');

    app.vulnerable = false;
    const fixed = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml');
    expect(fixed.code, fixed.err).toBe(0);
    expect(lines(fixed.out).sort()).toEqual(
      [
        `[${idOf('admin-panel')}] admin-panel ${host.origin} → not matched (fixed)`,
        `[${idOf('debug-page')}] debug-page ${host.origin} → not matched (fixed)`,
      ].sort(),
    );
    for (const f of findings) expect((await store.findings.get(f.id))?.vulnStatus).toBe('fixed');
    // Each retest sent the template's request once, with the secret.
    expect(host.requests.map((r) => [r.path, r.headers['x-api-key']]).sort()).toEqual([
      ['/admin', SECRET],
      ['/admin', SECRET],
      ['/admin', SECRET],
      ['/debug', SECRET],
      ['/debug', SECRET],
      ['/debug', SECRET],
    ]);

    const response = await api.get('/v1/retest?offset=0&limit=100', key);
    expect(response.status).toBe(200);
    const ours = response.body.results.filter((r: { scan_id: string }) => r.scan_id === scanId);
    expect(ours).toHaveLength(4);
    ours.forEach((result: unknown, i: number) => {
      expect(retestProblems(result, `results[${i}]`)).toEqual([]);
    });
    const [newest, , oldest] = ours;
    expect(newest).toMatchObject({
      matcher_status: false,
      result_type: 'not_matched',
      vuln_status: 'fixed',
      target: '127.0.0.1',
      template_url: '',
    });
    const debugFixed = ours.find(
      (r: { template_id: string; result_type: string }) =>
        r.template_id === 'debug-page' && r.result_type === 'not_matched',
    );
    expect(debugFixed).toMatchObject({
      vuln_id: idOf('debug-page'),
      scan_id: scanId,
      template_path: ws.path('debug.yaml'),
      matcher_status: false,
    });
    expect(Buffer.from(debugFixed.template_encoded, 'base64').toString('utf8')).toBe(DEBUG_TEMPLATE);
    expect(debugFixed.event).toHaveLength(1);
    expect(debugFixed.event[0]).toMatchObject({
      'template-id': 'debug-page',
      'matcher-status': false,
      host: '127.0.0.1',
      type: 'http',
      info: { name: 'Debug page exposed', severity: 'high', classification: { 'cwe-id': ['cwe-215'] } },
    });
    expect(debugFixed.event[0].response).toContain('404');
    expect(oldest).toMatchObject({ matcher_status: true, result_type: 'matched', vuln_status: 'open' });
    const matchedEvent = oldest.event.find((e: { 'matcher-status': boolean }) => e['matcher-status']);
    expect(matchedEvent).toMatchObject({
      'template-id': oldest.template_id,
      'matched-at': expect.any(String),
    });

    // The secret was sent, never recorded.
    const text = JSON.stringify(response.body);
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(SECRET);
  });

  it('records an error and leaves the status as it was when the target does not answer', async () => {
    const gone = await startHost('127.0.0.1', () => ({ body: 'DEBUG=on' }));
    const scan = await keyhole('scan', '-u', gone.origin, '-t', 'debug.yaml');
    const [finding] = await store.findings.ofScan(scanIdOf(scan.err), { limit: 1 });
    await gone.close();

    const result = await keyhole('retest', finding?.id ?? '', '--retries', '0');
    expect(result.code).toBe(2);
    expect(result.out).toMatch(
      new RegExp(
        `^\\[${finding?.id}\\] debug-page ${gone.origin} → error: ${gone.origin}/debug: .*ECONNREFUSED`,
      ),
    );
    expect(result.err).toContain('errors      1 (status unchanged)');
    expect((await store.findings.get(finding?.id ?? ''))?.vulnStatus).toBe('open');
    const [recorded] = await store.retests.ofFinding(finding?.id ?? '');
    expect(recorded).toMatchObject({ resultType: 'error', matcherStatus: false, vulnStatus: 'open' });
    expect(recorded?.events).toEqual([
      expect.objectContaining({ 'matcher-status': false, error: expect.stringContaining('ECONNREFUSED') }),
    ]);
  });

  it('records the retest of a finding triaged by hand and keeps its status, matched or not', async () => {
    const scanId = await scanApp();
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const debug = findings.find((f) => f.templateId === 'debug-page');
    const admin = findings.find((f) => f.templateId === 'admin-panel');
    const triaged = await keyhole('findings', 'set-status', 'false_positive', debug?.id ?? '');
    expect(triaged.code, triaged.err).toBe(0);

    const still = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml');
    expect(still.code, still.err).toBe(0);
    expect(lines(still.out)).toContain(
      `[${debug?.id}] debug-page ${host.origin} → matched (kept false_positive)`,
    );
    app.vulnerable = false;
    const gone = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml');
    expect(gone.code, gone.err).toBe(0);
    expect(lines(gone.out).sort()).toEqual(
      [
        `[${admin?.id}] admin-panel ${host.origin} → not matched (fixed)`,
        `[${debug?.id}] debug-page ${host.origin} → not matched (kept false_positive)`,
      ].sort(),
    );
    expect(gone.err).toContain('not matched 2 (fixed unless triaged)');
    expect(gone.err).toContain('triaged     1 (status set by hand, unchanged)');

    expect((await store.findings.get(debug?.id ?? ''))?.vulnStatus).toBe('false_positive');
    expect((await store.findings.get(admin?.id ?? ''))?.vulnStatus).toBe('fixed');
    const recorded = await store.retests.ofFinding(debug?.id ?? '');
    expect(recorded.map((r) => [r.resultType, r.matcherStatus, r.vulnStatus])).toEqual([
      ['not_matched', false, 'false_positive'],
      ['matched', true, 'false_positive'],
    ]);
  });

  it('prints each recorded retest result as a JSON line with -j', async () => {
    const scanId = await scanApp();
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml', '-j');
    expect(result.code, result.err).toBe(0);
    const parsed = lines(result.out).map((line) => JSON.parse(line));
    expect(parsed).toHaveLength(2);
    for (const [i, item] of parsed.entries()) {
      expect(item).toMatchObject({ scan_id: scanId, result_type: 'matched', vuln_status: 'open' });
      expect(Object.keys(item)).toEqual([
        'matcher_status',
        'vuln_id',
        'target',
        'template_url',
        'created_at',
        'updated_at',
        'scan_id',
        'event',
        'template_id',
        'template_path',
        'template_encoded',
        'result_type',
        'vuln_status',
      ]);
      expect(retestProblems({ ...item, event: [] }, `line ${i}`)).toEqual([]);
    }
  });

  it('records the secret in the events only with --no-redact', async () => {
    const scanId = await scanApp('--no-redact');
    const result = await keyhole('retest', '--scan', scanId, '-sf', 'secrets.yaml', '--no-redact', '-j');
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain(SECRET);
    const [finding] = await store.findings.ofScan(scanId, { limit: 1 });
    const [recorded] = await store.retests.ofFinding(finding?.id ?? '');
    expect(JSON.stringify(recorded?.events)).toContain(SECRET);
  });

  it('retests imported findings from the stored template text, or from the template file when none was stored', async () => {
    const event = (template: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        'template-id': template,
        info: { name: template, author: ['someone'], tags: null, severity: 'high' },
        type: 'http',
        host: '127.0.0.1',
        url: host.origin,
        'matched-at': `${host.origin}/debug`,
        timestamp: '2024-03-14T14:21:33Z',
        'matcher-status': true,
        ...extra,
      });
    const broken = 'id: admin-panel\ninfo: {name: x, author: y, severity: high}\nhttp:\n  - method: GET\n';
    ws.file(
      'nuclei.jsonl',
      `${[
        event('admin-panel', { 'template-encoded': Buffer.from(broken).toString('base64') }),
        event('debug-page', { 'template-path': ws.path('debug.yaml'), 'matcher-name': 'debug' }),
      ].join('\n')}\n`,
    );
    const imported = await keyhole('import', 'nuclei.jsonl', '--name', 'from nuclei');
    expect(imported.code, imported.err).toBe(0);
    const scanId = /scan ([0-9a-v]{20})/.exec(imported.out)?.[1] ?? '';

    const result = await keyhole('retest', '--scan', scanId, '-c', '1');
    expect(result.code).toBe(2);
    expect(lines(result.out).map((l) => l.replace(/^\[[a-z0-9]{20}\] /, ''))).toEqual([
      `admin-panel ${host.origin} → error: the stored template does not parse: line 4, column 5: http[0]: the request block needs "raw:" (raw HTTP requests) or "path:" (with "method:")`,
      `debug-page ${host.origin} → matched`,
    ]);
    const [, onDisk] = await store.findings.ofScan(scanId, { limit: 2 });
    const [recorded] = await store.retests.ofFinding(onDisk?.id ?? '');
    // The template run was read from its file: the retest result keeps its text.
    expect(Buffer.from(recorded?.templateEncoded ?? '', 'base64').toString('utf8')).toBe(DEBUG_TEMPLATE);
  });

  it('names unknown vuln ids and scans, and treats those of another team exactly the same', async () => {
    const theirs = await scanApp('--team', 'blue');
    const [their] = await store.findings.ofScan(theirs, { limit: 1 });
    const unknown = 'cn00000000000000000v';
    const sent = host.requests.length;

    const unknownId = await keyhole('retest', unknown);
    expect(unknownId).toEqual({
      code: 1,
      out: '',
      err: `error: no finding has the vuln id ${unknown}; nothing was retested\n`,
    });
    const otherTeam = await keyhole('retest', their?.id ?? '');
    expect(otherTeam.err.replace(their?.id ?? '', unknown)).toBe(unknownId.err);
    expect(otherTeam.code).toBe(1);

    const unknownScan = await keyhole('retest', '--scan', unknown);
    expect(unknownScan).toEqual({ code: 1, out: '', err: `error: --scan ${unknown}: no scan has that id\n` });
    const otherScan = await keyhole('retest', '--scan', theirs);
    expect(otherScan.err.replace(theirs, unknown)).toBe(unknownScan.err);

    const two = await keyhole('retest', unknown, their?.id ?? '');
    expect(two.err).toBe(
      `error: no findings have the vuln ids ${unknown}, ${their?.id}; nothing was retested\n`,
    );
    expect(host.requests.length).toBe(sent);
    expect(await store.retests.ofFinding(their?.id ?? '')).toEqual([]);

    const own = await keyhole('retest', their?.id ?? '', '--team', 'blue', '-sf', 'secrets.yaml');
    expect(own.code, own.err).toBe(0);
  });
});

describe('keyhole retest usage', () => {
  it('asks for vuln ids or --scan, not both, and checks the shape of ids (exit 1, nothing opened)', async () => {
    const own = new Workspace();
    const none = await own.cli(['retest']);
    expect(none).toEqual({
      code: 1,
      out: '',
      err: 'error: nothing to retest: give the vuln ids of findings, or --scan SCAN_ID for all of a scan\n',
    });
    const both = await own.cli(['retest', 'cn00000000000000000v', '--scan', 'cn00000000000000000u']);
    expect(both.err).toBe('error: give vuln ids or --scan SCAN_ID, not both\n');
    const malformed = await own.cli(['retest', 'nope', 'cn00000000000000000v', 'X1']);
    expect(malformed.err).toBe(
      'error: not a vuln id: "nope", "X1" (vuln ids are 20 characters of 0-9 and a-v)\n',
    );
    const flag = await own.cli(['retest', '--scan', 'cn00000000000000000u', '-timeout', '0']);
    expect(flag.err).toBe('error: -timeout takes a number from 0.001 to 86400, got "0"\n');
    expect(existsSync(own.path('.keyhole'))).toBe(false);
    own.remove();
  });
});

describe('keyhole retest, stopped or silent', () => {
  let db: TestDatabase;
  let store: Store;
  let scanId = '';

  beforeAll(async () => {
    db = await sqliteTestDatabase();
    store = await openStore(db.location);
    const scan = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'debug.yaml',
      '-t',
      'admin.yaml',
      '-sf',
      'secrets.yaml',
      '--db',
      dbArg(db.location),
    ]);
    scanId = scanIdOf(scan.err);
  });

  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('on Ctrl-C stops, records only the retests that finished, and exits 2', async () => {
    app.adminHangs = true;
    host.requests.length = 0;
    const io = memoryIo({ cwd: ws.dir });
    const running = run(
      ['retest', '--scan', scanId, '-sf', 'secrets.yaml', '-c', '1', '--db', dbArg(db.location)],
      io,
    );
    while (!host.requests.some((r) => r.path === '/admin')) await sleep(10);
    io.interrupt();
    expect(await running).toBe(2);
    expect(io.err()).toContain('[WRN] stopping: requests in flight are aborted');
    expect(io.err()).toMatch(/retest interrupted after .+: [01] of 2 findings retested/);
    const findings = await store.findings.ofScan(scanId, { limit: 10 });
    const admin = findings.find((f) => f.templateId === 'admin-panel');
    expect(await store.retests.ofFinding(admin?.id ?? '')).toEqual([]);
    expect(lines(io.out()).every((l) => l.includes('debug-page'))).toBe(true);
  });

  it('prints the results only with -silent', async () => {
    const result = await ws.cli([
      'retest',
      '--scan',
      scanId,
      '-sf',
      'secrets.yaml',
      '-silent',
      '--db',
      dbArg(db.location),
    ]);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(lines(result.out)).toHaveLength(2);
  });
});

describe('keyhole retest when the store goes away', () => {
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
    await proxy.close();
    await database.drop();
  });

  it('stops, says which retest could not be recorded and exits 2', async () => {
    const scan = await ws.cli(['scan', '-u', host.origin, '-t', 'admin.yaml', '--db', url]);
    expect(scan.code, scan.err).toBe(0);
    onAdmin = () => proxy.cutOff();
    const result = await ws.cli(['retest', '--scan', scanIdOf(scan.err), '--db', url]);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toMatch(/^error: the retest of [a-z0-9]{20} could not be recorded: .+\n/m);
    expect(result.err).toContain('retest failed after');
  });
});
