/** `keyhole findings export`: a stored scan's findings as SARIF, JSON, CSV and markdown, on both engines. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validSarif } from '../../../export/testing/sarif-schema.js';
import { ENGINES, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const FIXTURE = fileURLToPath(new URL('../../../importer/fixtures/nuclei-results.jsonl', import.meta.url));

describe.each(ENGINES)('findings export on $engine', ({ create }) => {
  let database: TestDatabase;
  let db: string;
  let dir: string;
  let scanId: string;

  async function keyhole(...argv: string[]) {
    const io = memoryIo({ cwd: dir });
    const code = await run([...argv, '--db', db], io);
    return { code, out: io.out(), err: io.err() };
  }

  beforeAll(async () => {
    database = await create();
    const location = database.location;
    db = location.engine === 'sqlite' ? location.path : location.url;
    dir = await mkdtemp(join(tmpdir(), 'keyhole-export-'));
    const imported = await keyhole('import', FIXTURE, '--name', 'exported');
    expect(imported.code, imported.err).toBe(0);
    scanId = /scan ([0-9a-v]{20})/.exec(imported.out)?.[1] ?? '';
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the scan's findings as one JSON array of result events on stdout", async () => {
    const result = await keyhole('findings', 'export', '--scan', scanId, '--format', 'json');
    expect(result.code, result.err).toBe(0);
    const events = JSON.parse(result.out);
    expect(events).toHaveLength(8);
    expect(events.map((e: { 'template-id': string }) => e['template-id'])).toContain('CVE-2021-41773');
  });

  it('writes a SARIF file valid against the SARIF 2.1.0 schema', async () => {
    const result = await keyhole(
      'findings',
      'export',
      '--scan',
      scanId,
      '--format',
      'sarif',
      '-o',
      'scan.sarif',
    );
    expect(result.code, result.err).toBe(0);
    const log = JSON.parse(await readFile(join(dir, 'scan.sarif'), 'utf8'));
    expect(validSarif(log), JSON.stringify(validSarif.errors)).toBe(true);
    expect(log.runs[0].results).toHaveLength(8);
  });

  it('writes CSV rows with the vuln ids that findings list shows, filtered by severity', async () => {
    const listed = await keyhole('findings', 'list', '--scan', scanId, '--severity', 'critical', '--json');
    const ids = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).vuln_id);
    const result = await keyhole(
      'findings',
      'export',
      '--scan',
      scanId,
      '--format',
      'csv',
      '--severity',
      'critical',
    );
    expect(result.code, result.err).toBe(0);
    const rows = result.out.trim().split('\r\n');
    expect(rows[0]?.startsWith('vuln_id,status,template_id,')).toBe(true);
    expect(rows.slice(1).map((row) => row.split(',')[0])).toEqual(ids);
  });

  it('writes a markdown folder: index.md and a file per finding', async () => {
    const result = await keyhole(
      'findings',
      'export',
      '--scan',
      scanId,
      '--format',
      'markdown',
      '-o',
      'report',
    );
    expect(result.code, result.err).toBe(0);
    const files = await readdir(join(dir, 'report'));
    expect(files).toHaveLength(9);
    const index = await readFile(join(dir, 'report', 'index.md'), 'utf8');
    expect(index.trim().split('\n')).toHaveLength(10);
  });

  it('refuses markdown without -o and a scan the team does not have, saying what to do', async () => {
    const markdown = await keyhole('findings', 'export', '--scan', scanId, '--format', 'markdown');
    expect(markdown.code).toBe(1);
    expect(markdown.err).toContain('give it with -o DIR');
    const unknown = await keyhole('findings', 'export', '--scan', 'cn5r7t3kd0ssm6bh1f2g', '--format', 'json');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no scan with the id cn5r7t3kd0ssm6bh1f2g');
    const format = await keyhole('findings', 'export', '--scan', scanId, '--format', 'xml');
    expect(format.code).toBe(1);
    expect(format.err).toContain('sarif, markdown, json, csv');
  });
});
