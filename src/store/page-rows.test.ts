import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idAmong } from './page-rows.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

describe.each(ENGINES)('a page’s rows by id on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let names: Map<string, string>;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    names = new Map();
    for (const name of ['alpha', 'beta', "o'hara", 'delta'])
      names.set((await store.teams.ensure(name)).id, name);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const namesOf = async (ids: Parameters<typeof idAmong>[1], on = store.connection.reads) =>
    (
      await on
        .selectFrom('team')
        .select('name')
        .where(idAmong(store.connection.engine, ids))
        .orderBy('name')
        .execute()
    ).map((row) => row.name);

  it('reads the rows of ids found already, and no others', async () => {
    const [alpha, , hara] = [...names.keys()];
    expect(await namesOf([alpha!, hara!])).toEqual(['alpha', "o'hara"]);
    expect(await namesOf([alpha!, 'no such id'])).toEqual(['alpha']);
  });

  it('reads the rows the query of the ids selects, on either pool of listings', async () => {
    const selected = store.connection.reads
      .selectFrom('team')
      .select('id')
      .where('name', 'in', ['beta', 'delta'])
      .orderBy('id')
      .limit(10);
    for (const on of [store.connection.reads, store.connection.readsPlannedOnce]) {
      // Twice each: prepared, then run by name.
      expect(await namesOf(selected, on)).toEqual(['beta', 'delta']);
      expect(await namesOf(selected, on)).toEqual(['beta', 'delta']);
    }
  });
});
