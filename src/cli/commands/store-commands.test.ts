import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi } from '../../api/testing/serve.js';
import { openStore, type StoreLocation } from '../../store/index.js';
import { ENGINES, type TestDatabase } from '../../store/testing/databases.js';
import { memoryIo } from '../io.js';
import { run } from '../program.js';

const FIXTURE = fileURLToPath(new URL('../../importer/fixtures/nuclei-results.jsonl', import.meta.url));

function dbArgument(location: StoreLocation): string {
  return location.engine === 'sqlite' ? location.path : location.url;
}

describe.each(ENGINES)('store commands on $engine', ({ create }) => {
  let database: TestDatabase;
  let db: string;
  let dir: string;

  beforeAll(async () => {
    database = await create();
    db = dbArgument(database.location);
    dir = await mkdtemp(join(tmpdir(), 'keyhole-cli-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function keyhole(...argv: string[]) {
    const io = memoryIo({ cwd: dir });
    const code = await run([...argv, '--db', db], io);
    return { code, out: io.out(), err: io.err() };
  }

  it('imports nuclei JSONL into an uploaded scan that /v1/scans shows with its severity counts', async () => {
    const imported = await keyhole('import', FIXTURE, '--name', 'nightly');
    expect(imported.err).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.out).toContain('imported 8 findings');
    expect(imported.out).toContain('1 already in the scan, 1 not matched');
    const scanId = /scan ([0-9a-v]{20})/.exec(imported.out)?.[1] ?? '';

    const key = (await keyhole('keys', 'create', '--name', 'roundtrip')).out.trim();
    expect(key).toMatch(/^kh_/);
    const store = await openStore(database.location);
    const api = await serveApi(store);
    try {
      const response = await api.get('/v1/scans?status=uploaded', key);
      expect(response.status).toBe(200);
      const scan = response.body.data.find((s: { scan_id: string }) => s.scan_id === scanId);
      expect(scan).toMatchObject({
        name: 'nightly',
        status: 'uploaded',
        progress: 100,
        severity: { critical: 1, high: 1, medium: 1, low: 2, info: 2, unknown: 1 },
        total_target: 4,
        total_template: 7,
        is_oss: true,
        is_cloud: false,
        scan_time_elapsed: '6s',
      });
      expect(scan.public_templates).toContain('CVE-2021-41773');
      expect(scan.public_templates).not.toContain('internal-debug-endpoint');
      expect(scan.template_urls).toContain('https://cloud.projectdiscovery.io/public/tomcat-detect');

      // A retest recorded through the store shows in /v1/retest with its fields.
      let cve: { id: string } | undefined;
      for await (const finding of store.findings.allOfScan(scanId)) {
        if (finding.templateId === 'CVE-2021-41773') cve = finding;
      }
      const retest = await store.retests.record({
        vulnId: cve!.id,
        resultType: 'not_matched',
        events: [
          {
            'template-id': 'CVE-2021-41773',
            info: {
              name: 'Apache 2.4.49 - Path Traversal',
              author: ['daffainfo'],
              tags: ['cve'],
              severity: 'critical',
            },
            type: 'http',
            host: 'legacy.example.test',
            timestamp: '2024-03-20T08:00:00.000000001Z',
            'matcher-status': false,
          },
        ],
      });
      const retests = await api.get('/v1/retest?offset=0&limit=10', key);
      expect(retests.body.results[0]).toMatchObject({
        vuln_id: cve!.id,
        scan_id: scanId,
        target: 'legacy.example.test',
        template_id: 'CVE-2021-41773',
        template_url: 'https://cloud.projectdiscovery.io/public/CVE-2021-41773',
        template_path: '/home/runner/nuclei-templates/http/cves/2021/CVE-2021-41773.yaml',
        result_type: 'not_matched',
        matcher_status: false,
        vuln_status: 'fixed',
        created_at: new Date(retest.createdAt).toISOString(),
      });
      expect(retests.body.results[0].event[0]).toMatchObject({
        'template-id': 'CVE-2021-41773',
        'matcher-status': false,
      });
    } finally {
      await api.close();
      await store.close();
    }
  });

  it('adds nothing when the same file is imported again into the same scan', async () => {
    const first = await keyhole('import', FIXTURE, '--name', 'twice');
    const scanId = /scan ([0-9a-v]{20})/.exec(first.out)?.[1] ?? '';
    const second = await keyhole('import', FIXTURE, '--scan', scanId);
    expect(second.code).toBe(0);
    expect(second.out).toContain('imported 0 findings');
    expect(second.out).toContain('critical 1, high 1, medium 1, low 2, info 2, unknown 1');
  });

  it('reports bad lines by number and keeps the good ones', async () => {
    const lines = (await import('node:fs/promises')).readFile(FIXTURE, 'utf8');
    const good = (await lines).split('\n').filter((l) => l !== '');
    const file = join(dir, 'mixed.jsonl');
    await writeFile(
      file,
      [
        good[0],
        '{not json',
        good[2],
        '{"template-id":"x","info":{"severity":"urgent"},"type":"http"}',
        '[]',
        good[4],
      ].join('\n'),
    );
    const result = await keyhole('import', file, '--name', 'mixed');
    expect(result.code).toBe(2);
    expect(result.err).toContain('mixed.jsonl:2: not valid JSON');
    expect(result.err).toContain(
      'mixed.jsonl:4: info.severity: expected one of critical, high, medium, low, info, unknown; got "urgent"',
    );
    expect(result.err).toContain('mixed.jsonl:5: expected a JSON object');
    expect(result.out).toContain('imported 3 findings');
    expect(result.out).toContain('3 bad lines');
  });

  it('lists scans and their findings with vuln ids, and triages findings by id', async () => {
    const imported = await keyhole('import', FIXTURE, '--name', 'triage', '--team', 'triagers');
    const scanId = /scan ([0-9a-v]{20})/.exec(imported.out)?.[1] ?? '';
    const scans = await keyhole('scans', 'list', '--team', 'triagers', '--status', 'uploaded');
    expect(scans.code).toBe(0);
    expect(scans.out).toMatch(new RegExp(`${scanId}\\s+triage\\s+uploaded\\s+100%\\s+1/1/1/2/2`));
    expect((await keyhole('scans', 'list', '--team', 'triagers', '--status', 'running')).out).not.toContain(
      scanId,
    );

    const listed = await keyhole('findings', 'list', '--scan', scanId, '--team', 'triagers', '--json');
    const findings = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(findings).toHaveLength(8);
    const critical = findings.filter((f) => f.severity === 'critical');
    expect(critical).toHaveLength(1);
    expect(critical[0]).toMatchObject({
      scan_id: scanId,
      vuln_status: 'open',
      template_id: 'CVE-2021-41773',
    });

    const vulnId = critical[0].vuln_id;
    const set = await keyhole('findings', 'set-status', 'false_positive', vulnId, '--team', 'triagers');
    expect(set.out).toContain('1 finding set to false_positive');
    const table = await keyhole(
      'findings',
      'list',
      '--scan',
      scanId,
      '--team',
      'triagers',
      '--status',
      'false_positive',
    );
    expect(table.out).toMatch(
      new RegExp(`^VULN_ID.*\\n${vulnId}\\s+critical\\s+false_positive\\s+CVE-2021-41773\\s+http`),
    );
    expect(table.out.trim().split('\n')).toHaveLength(2);
  });

  it("refuses unknown statuses, unknown ids and another team's scan, changing nothing", async () => {
    const imported = await keyhole('import', FIXTURE, '--name', 'private', '--team', 'owners');
    const scanId = /scan ([0-9a-v]{20})/.exec(imported.out)?.[1] ?? '';
    const vulnId = JSON.parse(
      (await keyhole('findings', 'list', '--scan', scanId, '--team', 'owners', '--json')).out.split(
        '\n',
      )[0] ?? '',
    ).vuln_id;

    await keyhole('keys', 'create', '--name', 'intruder', '--team', 'intruders');
    const otherTeam = await keyhole('findings', 'list', '--scan', scanId, '--team', 'intruders');
    expect(otherTeam.code).toBe(1);
    expect(otherTeam.err).toContain(`team "intruders" has no scan with the id ${scanId}`);
    const stolen = await keyhole('findings', 'set-status', 'fixed', vulnId, '--team', 'intruders');
    expect(stolen.code).toBe(1);
    const partial = await keyhole(
      'findings',
      'set-status',
      'fixed',
      vulnId,
      'nosuchfinding',
      '--team',
      'owners',
    );
    expect(partial.code).toBe(1);
    expect(partial.err).toContain('no finding with the id nosuchfinding; nothing changed');
    const badStatus = await keyhole('findings', 'set-status', 'closed', vulnId, '--team', 'owners');
    expect(badStatus.err).toContain('unknown status "closed"; use one of open, fixed, false_positive');
    const badFilter = await keyhole('scans', 'list', '--status', 'done');
    expect(badFilter.err).toContain('--status: unknown value "done"; use a comma list of');
    expect((await keyhole('scans', 'list', '--limit', '0')).err).toContain(
      '--limit: expected a whole number',
    );

    const after = await keyhole(
      'findings',
      'list',
      '--scan',
      scanId,
      '--team',
      'owners',
      '--status',
      'open',
      '--json',
    );
    expect(after.out.trim().split('\n')).toHaveLength(8);
  });

  it('uploads an asset list, refusing a list with bad lines unless told to skip them', async () => {
    const file = join(dir, 'hosts.txt');
    await writeFile(file, '# prod\nhttps://app.test\napp.test:8443\nnot a host\n10.0.0.1\n10.0.0.1\n');
    const refused = await keyhole('assets', 'upload', file, '--name', 'prod');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('hosts.txt:4: "not a host"');
    const stored = await keyhole('assets', 'upload', file, '--name', 'prod', '--skip-invalid');
    expect(stored.out).toMatch(/uploaded asset list [0-9a-v]{20} "prod": 3 targets \(1 duplicate dropped\)/);
    const listed = await keyhole('assets', 'list');
    expect(listed.out).toContain('prod');
  });

  it('exits 0 when --skip-invalid stored the good lines, the skipped ones reported on stderr', async () => {
    const file = join(dir, 'scope.txt');
    await writeFile(file, 'https://app.test\nnot a host\n');
    const stored = await keyhole('assets', 'upload', file, '--name', 'scope', '--skip-invalid');
    expect(stored.err).toContain('scope.txt:2: "not a host"');
    expect(stored.out).toMatch(/uploaded asset list [0-9a-v]{20} "scope": 1 targets/);
    expect(stored.code).toBe(0);
  });

  it('names an asset list after its file when --name is left out, as import names a scan', async () => {
    const file = join(dir, 'partners.txt');
    await writeFile(file, 'https://partner.test\n');
    const stored = await keyhole('assets', 'upload', file);
    expect(stored.err).toBe('');
    expect(stored.code).toBe(0);
    expect(stored.out).toMatch(/uploaded asset list [0-9a-v]{20} "partners\.txt": 1 targets/);
  });

  it('creates, lists and revokes keys without ever listing a key', async () => {
    const created = await keyhole('keys', 'create', '--name', 'ci', '--team', 'appsec');
    const key = created.out.trim();
    expect(created.err).toContain('for team "appsec"');
    const id = /API key ([0-9a-v]{20})/.exec(created.err)?.[1] ?? '';
    const listed = await keyhole('keys', 'list');
    expect(listed.out).toContain(id);
    expect(listed.out).not.toContain(key);
    expect((await keyhole('keys', 'revoke', id)).out).toContain('revoked API key');
    expect((await keyhole('keys', 'list')).out).toMatch(new RegExp(`${id}.*revoked`));
    expect((await keyhole('keys', 'revoke', 'nosuchkey')).code).toBe(1);
  });

  it('creates a read key unless --scope write is given, and refuses any other scope', async () => {
    const reader = await keyhole('keys', 'create', '--name', 'dashboard');
    expect(reader.err).toContain('created read API key');
    const writer = await keyhole('keys', 'create', '--name', 'nuclei', '--scope', 'write');
    expect(writer.code).toBe(0);
    expect(writer.err).toContain('created write API key');
    const id = /API key ([0-9a-v]{20})/.exec(writer.err)?.[1] ?? '';
    expect((await keyhole('keys', 'list')).out).toMatch(new RegExp(`${id}\\s+nuclei\\s+default\\s+write`));
    const wrong = await keyhole('keys', 'create', '--name', 'x', '--scope', 'admin');
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toContain("'admin' is invalid");
    expect(wrong.err).toContain('read, write');
  });

  it('migrates explicitly and says when there is nothing to do', async () => {
    const result = await keyhole('db', 'migrate');
    expect(result.code).toBe(0);
    expect(result.out).toContain('schema is up to date');
  });
});
