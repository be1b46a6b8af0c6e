/** The built `keyhole import` as a process, where its peak memory can be measured. */
import { execFile } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const binary = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../importer/fixtures/nuclei-results.jsonl', import.meta.url));
/** Loaded before the CLI: prints the process's peak resident memory (KiB) as it exits. */
const REPORT_PEAK_MEMORY = `data:text/javascript,process.on('exit',()=>process.stderr.write('peak-rss-kib='+process.resourceUsage().maxRSS+'\\n'))`;

describe('keyhole import as a process', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file with a 300 MiB line in bounded memory, skipping that line by number', async () => {
    // A sparse file: 300 MiB of NUL bytes on one line takes no disk, then one good event.
    const file = join(dir, 'huge.jsonl');
    const good = (await readFile(FIXTURE, 'utf8')).split('\n')[0];
    const handle = await open(file, 'w');
    await handle.write(`\n${good}\n`, 300 << 20);
    await handle.close();

    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', REPORT_PEAK_MEMORY, binary, 'import', file, '--db', join(dir, 'store.db')],
      { cwd: dir },
    ).catch((error: { code: number; stdout: string; stderr: string }) => {
      expect(error.code).toBe(2);
      return error;
    });
    const peakKiB = Number(/peak-rss-kib=(\d+)/.exec(stderr)?.[1]);
    // Node with the store open takes about 100 MiB; the 32 MiB line limit comes on top.
    expect(peakKiB).toBeLessThan(300 * 1024);
    expect(stderr).toContain(`${file}:1: the line is 300 MiB long, over the limit of 32 MiB`);
    expect(stdout).toContain('imported 1 finding');
  });
});
