import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type StoreLocation } from '../../store/index.js';
import { ENGINES, tablesOf } from '../../store/testing/databases.js';
import { SCRATCH_PG_SERVER } from '../../store/testing/scratch.js';
import { memoryIo } from '../io.js';
import { run } from '../program.js';

const SOME_ID = 'cn5r7t3kd0ssm6bh1f2g';

/** Every command that uses what was recorded without recording anything new for a team. */
const READS: readonly (readonly string[])[] = [
  ['scans', 'list'],
  ['findings', 'list', '--scan', SOME_ID],
  ['findings', 'set-status', 'fixed', SOME_ID],
  ['assets', 'list'],
  ['retest', SOME_ID],
  ['scan', '--rescan', SOME_ID],
];

/** The commands that need a store, besides those above: they use no team. */
const TEAMLESS_READS: readonly (readonly string[])[] = [
  ['keys', 'list'],
  ['keys', 'revoke', SOME_ID],
  ['serve', '--port', '0'],
];

function dbArgument(location: StoreLocation): string {
  return location.engine === 'sqlite' ? location.path : location.url;
}

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

describe('commands that read, in a folder without a store', () => {
  it.each([...READS, ...TEAMLESS_READS].map((argv) => [argv.join(' '), argv] as const))(
    'keyhole %s exits 1 and leaves the folder empty',
    async (_command, argv) => {
      const result = await keyhole(argv);
      expect(result.code).toBe(1);
      expect(result.err).toContain(
        `SQLite ${join(dir, '.keyhole', 'keyhole.db')} does not exist; nothing was created`,
      );
      expect(await readdir(dir)).toEqual([]);
    },
  );
});

describe.each(ENGINES)('commands that read, on $engine', ({ create }) => {
  it('refuse a store that does not exist, creating nothing', async () => {
    const database = await create();
    try {
      for (const argv of [...READS, ...TEAMLESS_READS]) {
        const result = await keyhole([...argv, '--db', dbArgument(database.location)]);
        expect({ argv, code: result.code }).toEqual({ argv, code: 1 });
        expect(result.err).toContain('nothing was created');
      }
      expect(await tablesOf(database.location)).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('refuse a team that does not exist, naming the teams there are, and create none', async () => {
    const database = await create();
    try {
      const db = dbArgument(database.location);
      expect((await keyhole(['keys', 'create', '--name', 'ci', '--team', 'appsec', '--db', db])).code).toBe(
        0,
      );
      for (const argv of READS) {
        const result = await keyhole([...argv, '--team', 'apsec', '--db', db]);
        expect({ argv, code: result.code }).toEqual({ argv, code: 1 });
        expect(result.err).toContain('team "apsec" does not exist');
        expect(result.err).toContain('its teams: appsec');
      }
      const store = await openStore(database.location);
      try {
        expect(await store.teams.names()).toEqual(['appsec']);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('db migrate creates the store with no note: a new store has no rows to rewrite', async () => {
    const database = await create();
    try {
      const result = await keyhole(['db', 'migrate', '--db', dbArgument(database.location)]);
      expect(result).toMatchObject({ code: 0, err: '' });
      expect(result.out).toContain('applied 0001_');
      expect(result.out).toContain('0028_served_texts_kept_inline');
    } finally {
      await database.drop();
    }
  });

  it('read an existing team with nothing recorded as an empty list', async () => {
    const database = await create();
    try {
      const db = dbArgument(database.location);
      await keyhole(['keys', 'create', '--name', 'ci', '--db', db]);
      const listed = await keyhole(['scans', 'list', '--json', '--db', db]);
      expect(listed).toEqual({ code: 0, out: '', err: '' });
    } finally {
      await database.drop();
    }
  });
});

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

describe('KEYHOLE_DB_READ_CONNECTIONS', () => {
  async function withConnections(value: string, argv: readonly string[]) {
    const io = memoryIo({ cwd: dir, env: { KEYHOLE_DB_READ_CONNECTIONS: value } });
    const code = await run(argv, io);
    return { code, out: io.out(), err: io.err() };
  }

  it.each(['0', '-2', '2.5', 'four', '101', '1e1'])(
    'refuses %j before opening the store, naming the variable and what it takes',
    async (value) => {
      const result = await withConnections(value, ['keys', 'create', '--name', 'ci']);
      expect(result.code).toBe(1);
      expect(result.err).toContain(`KEYHOLE_DB_READ_CONNECTIONS is ${JSON.stringify(value)}`);
      expect(result.err).toContain('a whole number of connections from 1 to 100');
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it.each(['', ' ', '1', '100', ' 4 '])('takes %j', async (value) => {
    const result = await withConnections(value, ['keys', 'create', '--name', 'ci']);
    expect(result.code).toBe(0);
    expect(result.err).toContain('created read API key');
  });
});
