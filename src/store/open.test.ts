import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreMissingError } from './errors.js';
import type { StoreLocation } from './location.js';
import { openStore } from './store.js';
import { ENGINES, tablesOf } from './testing/databases.js';

describe('an SQLite store keyhole creates', () => {
  let dir: string;
  let umask: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-open-'));
    // The usual umask, which alone would leave the files readable by everyone.
    umask = process.umask(0o022);
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(dir, { recursive: true, force: true });
  });

  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it('is readable by its owner only: the file, its WAL and shared-memory files, and the .keyhole folder', async () => {
    const location: StoreLocation = {
      engine: 'sqlite',
      path: join(dir, '.keyhole', 'keyhole.db'),
      isDefault: true,
    };
    const store = await openStore(location);
    try {
      await store.teams.ensure('default');
      expect(await modeOf(join(dir, '.keyhole'))).toBe(0o700);
      expect((await readdir(join(dir, '.keyhole'))).sort()).toEqual([
        'keyhole.db',
        'keyhole.db-shm',
        'keyhole.db-wal',
      ]);
      for (const file of ['keyhole.db', 'keyhole.db-shm', 'keyhole.db-wal']) {
        expect({ file, mode: await modeOf(join(dir, '.keyhole', file)) }).toEqual({ file, mode: 0o600 });
      }
    } finally {
      await store.close();
    }
  });

  it('is readable by its owner only at a path given with --db, in a folder it leaves as it was', async () => {
    const path = join(dir, 'results.db');
    const store = await openStore({ engine: 'sqlite', path, isDefault: false });
    try {
      await store.teams.ensure('default');
      expect(await modeOf(path)).toBe(0o600);
      expect(await modeOf(`${path}-wal`)).toBe(0o600);
      expect(await modeOf(dir)).toBe(0o700);
    } finally {
      await store.close();
    }
  });
});

describe.each(ENGINES)('opening a store that must exist on $engine', ({ engine, create }) => {
  it('refuses a store that does not exist and creates nothing', async () => {
    const database = await create();
    try {
      const opened = openStore(database.location, { create: false });
      await expect(opened).rejects.toBeInstanceOf(StoreMissingError);
      await expect(opened).rejects.toThrow(engine === 'sqlite' ? /does not exist/ : /holds no keyhole store/);
      expect(await tablesOf(database.location)).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('opens a store once created', async () => {
    const database = await create();
    try {
      await (await openStore(database.location)).close();
      const store = await openStore(database.location, { create: false });
      await store.close();
    } finally {
      await database.drop();
    }
  });
});
