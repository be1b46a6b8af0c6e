import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatted, jsonTimestamp } from './served-sql.js';
import { openStore, type Store } from './store.js';
import { sqliteTestDatabase, type TestDatabase } from './testing/databases.js';

describe('JSON text written by SQLite', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const written = async (expression: ReturnType<typeof sql>) =>
    (await sql<{ text: string }>`select ${expression} as text`.execute(store.connection.db)).rows[0]?.text;

  it('keeps percent signs and quotes of its literal parts, and writes a value as its text or NULL as nothing', async () => {
    const text = await written(
      formatted([`{"100%":"it's",`, sql`${'a%sb'}`, ',"n":', sql`42`, ',"none":"', sql`null`, '"}']),
    );
    expect(text).toBe(`{"100%":"it's",a%sb,"n":42,"none":""}`);
  });

  it('writes instants as Date.toISOString does, before 1970 too, and "" for none', async () => {
    const instants = [
      0, 1, 999, 1_000, -1, -999, -1_000, -1_001, 1_700_000_000_123, -62_167_219_200_000, 253_402_300_799_999,
    ];
    for (const ms of instants) {
      const text = await written(jsonTimestamp(sql`cast(${String(ms)} as integer)`));
      expect(text, String(ms)).toBe(JSON.stringify(new Date(ms).toISOString()));
    }
    expect(await written(jsonTimestamp(sql`null`))).toBe('""');
  });
});
