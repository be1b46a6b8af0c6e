import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './store.js';
import { loadSources, storeSources } from './templates.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

describe.each(ENGINES)('template sources on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('loads each stored source by its hash, and nothing for a hash never stored', async () => {
    const texts = [`a ${database.location.engine} ${Date.now()}`, `b ${Math.random()}`];
    const hashes = await storeSources(store.connection.db, [...texts, '']);
    expect(hashes[2]).toBeNull();
    const sources = await loadSources(store.connection.db, [...hashes, 'f'.repeat(64)]);
    expect(Object.fromEntries(sources)).toEqual({ [hashes[0]!]: texts[0], [hashes[1]!]: texts[1] });
  });

  it('reads a source from the store once: a hash names the same text for ever', async () => {
    const text = `c ${database.location.engine} ${Math.random()}`;
    const [hash] = await storeSources(store.connection.db, [text]);
    expect((await loadSources(store.connection.db, [hash!])).get(hash!)).toBe(text);
    // Gone from the store (which keyhole never does), the text is still known.
    await sql`delete from template_source where hash = ${hash}`.execute(store.connection.db);
    expect((await loadSources(store.connection.db, [hash!])).get(hash!)).toBe(text);
  });
});
