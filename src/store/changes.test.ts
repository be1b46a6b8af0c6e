import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';

describe('the count of writes a PostgreSQL store commits', () => {
  let database: TestDatabase;
  let store: Store;
  let generation: () => number;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    const { connection } = store;
    if (connection.engine !== 'postgres') throw new Error('expected PostgreSQL');
    generation = () => connection.changes.generation;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('grows as a write outside a transaction returns', async () => {
    const before = generation();
    await store.teams.ensure('counted');
    expect(generation()).toBeGreaterThan(before);
  });

  it('grows as a transaction that wrote commits, not before', async () => {
    const before = generation();
    let during = -1;
    await store.connection.db.transaction().execute(async (db) => {
      await db
        .insertInto('team')
        .values({ id: 'a0000000000000000000', name: 'in a transaction', created_at: 1 })
        .execute();
      during = generation();
    });
    expect(during).toBe(before);
    expect(generation()).toBeGreaterThan(before);
  });

  it('stays for reads, read-only transactions and rolled-back writes', async () => {
    const before = generation();
    await store.teams.byName('counted');
    await store.scans.list((await store.teams.ensure('counted')).id, { offset: 0, limit: 10 });
    await store.connection.db.transaction().execute((db) => db.selectFrom('team').selectAll().execute());
    await expect(
      store.connection.db.transaction().execute(async (db) => {
        await db
          .insertInto('team')
          .values({ id: 'b0000000000000000000', name: 'rolled back', created_at: 1 })
          .execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    await sql`select 1`.execute(store.connection.db);
    expect(generation()).toBe(before);
    expect(await store.teams.byName('rolled back')).toBeUndefined();
  });
});
