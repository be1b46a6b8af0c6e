import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCRATCH_PG_SERVER } from '../store/scratch.js';
import { memoryIo } from './io.js';
import { run } from './program.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-reads-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function keyhole(argv: readonly string[]) {
  const io = memoryIo({ cwd: dir });
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('credentials of the store location', () => {
  it('never shows a PostgreSQL password, key passphrase or key file, even in a driver error', async () => {
    const url = `${SCRATCH_PG_SERVER}/keyhole_no_such_db?password=hunter2&sslpassword=sesame7&sslkey=/nonexistent/wallet-4242.key`;
    for (const argv of [
      ['db', 'migrate'],
      ['keys', 'create', '--name', 'ci'],
      ['scans', 'list'],
    ]) {
      const result = await keyhole([...argv, '--db', url]);
      expect({ argv, failed: result.code !== 0 }).toEqual({ argv, failed: true });
      expect(result.err).toContain('ENOENT');
      expect(result.err).not.toMatch(/hunter2|sesame7|wallet-4242/);
    }
  });

  it('refuses a libpq keyword/value string without showing it or creating a file named after it', async () => {
    for (const argv of [
      ['scans', 'list'],
      ['keys', 'create', '--name', 'ci'],
    ]) {
      const result = await keyhole([...argv, '--db', 'host=db.test dbname=keyhole password=hunter2']);
      expect(result.code).toBe(1);
      expect(result.err).toContain('postgres://USER@HOST:PORT/DBNAME');
      expect(result.err).not.toContain('hunter2');
    }
    expect(await readdir(dir)).toEqual([]);
  });
});
