import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLocation } from './location.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';

/** The first folder the test server keeps its Unix socket in, asked over its TCP address. */
async function socketFolder(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ folders: string }>(
      "select current_setting('unix_socket_directories') as folders",
    );
    return (rows[0]?.folders ?? '').split(',')[0]?.trim() ?? '';
  } finally {
    await client.end();
  }
}

/** Whether each of `store`'s pools reaches PostgreSQL through a Unix socket (no client address). */
async function overSocket(store: Store): Promise<boolean[]> {
  const conn = store.connection;
  if (conn.engine !== 'postgres') throw new Error('a PostgreSQL store was expected');
  const pools = [conn.db, conn.reads, conn.readsPlannedOnce];
  const answers = await Promise.all(
    pools.map((db) => sql<{ local: boolean }>`select inet_client_addr() is null as local`.execute(db)),
  );
  return answers.map((answer) => answer.rows[0]?.local === true);
}

describe('a PostgreSQL store on the same machine, reached through its Unix socket', () => {
  let database: TestDatabase;
  let folder: string;
  let name: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('a PostgreSQL database was expected');
    folder = await socketFolder(database.location.url);
    name = new URL(database.location.url).pathname.slice(1);
    // The test server is Debian's, which keeps its socket (PostgreSQL's default too).
    expect(folder).not.toBe('');
  });

  afterAll(async () => {
    await database.drop();
  });

  it.each([
    [
      'the folder as the host, percent-encoded',
      () => `postgres://postgres@${encodeURIComponent(folder)}/${name}`,
    ],
    ['the folder as the host parameter', () => `postgres://postgres@localhost/${name}?host=${folder}`],
  ])('opens every pool on the socket, with %s', async (form, url) => {
    const store = await openStore({ engine: 'postgres', url: url() });
    try {
      const team = await store.teams.ensure(form.replaceAll(' ', '-').replace(/[^a-z-]/g, ''));
      await store.scans.create({ teamId: team.id, name: 'over the socket' });
      expect(await overSocket(store)).toEqual([true, true, true]);
      const scans = await store.scans.list(team.id, { offset: 0, limit: 10 });
      expect(scans.map((scan) => scan.name)).toEqual(['over the socket']);
    } finally {
      await store.close();
    }
  });

  it('hears another process’s writes through the socket, as its change token moves', async () => {
    const url = `postgres://postgres@${encodeURIComponent(folder)}/${name}`;
    const reader = await openStore({ engine: 'postgres', url });
    const writer = await openStore({ engine: 'postgres', url });
    try {
      await reader.changeToken();
      await expect.poll(() => reader.changeToken(), { timeout: 5_000 }).toMatch(/^g/);
      const before = await reader.changeToken();
      await writer.teams.ensure('another');
      await expect.poll(() => reader.changeToken(), { timeout: 5_000 }).not.toBe(before);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('is named by its folder and database, its password hidden', () => {
    const described = describeLocation({
      engine: 'postgres',
      url: `postgres://keyhole:hunter2@${encodeURIComponent(folder)}/${name}`,
    });
    expect(described).toContain(name);
    expect(described).not.toContain('hunter2');
  });
});
