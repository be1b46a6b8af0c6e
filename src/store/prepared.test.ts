import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPool, StatementNames } from './prepared.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';

describe('statement names', () => {
  it('names a text the second time it runs, and keeps that name', () => {
    const names = new StatementNames();
    expect(names.nameOf('select 1')).toBeUndefined();
    const name = names.nameOf('select 1');
    expect(name).toMatch(/^keyhole_/);
    expect(names.nameOf('select 1')).toBe(name);
    expect(names.nameOf('select 2')).toBeUndefined();
  });

  it('gives every text its own name', () => {
    const names = new StatementNames();
    const issued = new Set<string | undefined>();
    for (let i = 0; i < 100; i++) {
      names.nameOf(`select ${i}`);
      issued.add(names.nameOf(`select ${i}`));
    }
    expect(issued.size).toBe(100);
    expect(issued.has(undefined)).toBe(false);
  });

  it('names no more texts than its limit, and runs the rest unnamed', () => {
    const names = new StatementNames(3);
    for (const text of ['a', 'a', 'b', 'b', 'c', 'c', 'd', 'd']) names.nameOf(text);
    expect(names.size).toBe(3);
    expect(names.nameOf('d')).toBeUndefined();
    expect(names.nameOf('a')).toBeDefined();
  });

  it('names no text longer than a statement the store repeats', () => {
    const names = new StatementNames();
    const bulk = `insert into thing values ${Array.from({ length: 3_000 }, (_, i) => `($${i + 1})`).join(', ')}`;
    names.nameOf(bulk);
    expect(names.nameOf(bulk)).toBeUndefined();
  });

  it('names nothing once disabled', () => {
    const names = new StatementNames();
    names.nameOf('select 1');
    names.nameOf('select 1');
    names.disable();
    names.nameOf('select 2');
    expect([names.nameOf('select 1'), names.nameOf('select 2'), names.size]).toEqual([
      undefined,
      undefined,
      0,
    ]);
  });

  it('names a retired text anew', () => {
    const names = new StatementNames();
    names.nameOf('select 1');
    const first = names.nameOf('select 1');
    names.retire('select 1');
    names.nameOf('select 1');
    const second = names.nameOf('select 1');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  });
});

describe('queries through a preparing pool, on PostgreSQL', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<{ thing: { id: number; label: string } }>;
  const names = new StatementNames();

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    pool = new pg.Pool({ connectionString: database.location.url, max: 1 });
    db = new Kysely({ dialect: new PostgresDialect({ pool: preparingPool(pool, 'each run', names) }) });
    await sql`create table thing (id integer primary key, label text not null)`.execute(db);
    await sql`insert into thing values (1, 'one'), (2, 'two')`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const byId = (id: number) => db.selectFrom('thing').selectAll().where('id', '=', id).execute();
  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
      (row) => row.statement,
    );

  /** How many times PostgreSQL planned the statement prepared from `text` for any values, and for a run's. */
  const plansOf = async (text: string, on: typeof db = db) => {
    const { rows } = await sql<{ generic: string; custom: string }>`select generic_plans as generic,
      custom_plans as custom from pg_prepared_statements where statement = ${text}`.execute(on);
    return rows.length === 0
      ? undefined
      : { generic: Number(rows[0]!.generic), custom: Number(rows[0]!.custom) };
  };

  it('runs a repeated query as a statement prepared on the connection, with each run its values', async () => {
    expect(await byId(1)).toEqual([{ id: 1, label: 'one' }]);
    expect(await byId(2)).toEqual([{ id: 2, label: 'two' }]);
    expect(await byId(1)).toEqual([{ id: 1, label: 'one' }]);
    expect(await prepared()).toContain('select * from "thing" where "id" = $1');
  });

  it('fails a statement once when its table changed under it, then prepares it again', async () => {
    const text = 'select * from "thing" where "id" = $1';
    const before = names.nameOf(text);
    await sql`alter table thing add column note text`.execute(db);
    await expect(byId(1)).rejects.toMatchObject({ code: '0A000' });
    expect(await byId(1)).toEqual([{ id: 1, label: 'one', note: null }]);
    expect(await byId(2)).toEqual([{ id: 2, label: 'two', note: null }]);
    expect(names.nameOf(text)).not.toBe(before);
  });

  it('plans every run of a statement for its values', async () => {
    const modes = await Promise.all(
      [1, 2, 3].map(() => sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db)),
    );
    expect(modes.map((mode) => mode.rows[0]?.plan_cache_mode)).toEqual(Array(3).fill('force_custom_plan'));
    const byLabel = (label: string) =>
      db.selectFrom('thing').select('id').where('label', '=', label).execute();
    for (const label of ['one', 'two', 'one', 'two', 'one', 'two', 'one']) await byLabel(label);
    expect(await plansOf('select "id" from "thing" where "label" = $1')).toEqual({ generic: 0, custom: 6 });
  });

  it('plans a statement once on a pool that plans once, whatever its values', async () => {
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    const once = new Kysely<{ thing: { id: number; label: string } }>({
      dialect: new PostgresDialect({
        pool: preparingPool(new pg.Pool({ connectionString: database.location.url, max: 1 }), 'once'),
      }),
    });
    try {
      const byLabel = (label: string) =>
        once.selectFrom('thing').select('id').where('label', '<>', label).orderBy('id').execute();
      for (const label of ['one', 'two', 'one', 'two', 'one']) await byLabel(label);
      expect(await byLabel('two')).toEqual([{ id: 1 }]);
      expect(await byLabel('one')).toEqual([{ id: 2 }]);
      const mode = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(once);
      expect(mode.rows[0]?.plan_cache_mode).toBe('force_generic_plan');
      // The first run is unnamed; the six after it run the one plan made at the first of them.
      expect(await plansOf('select "id" from "thing" where "label" <> $1 order by "id"', once)).toEqual({
        generic: 6,
        custom: 0,
      });
    } finally {
      await once.destroy();
    }
  });

  it('runs queries in a transaction on the same prepared statements', async () => {
    const labels = await db.transaction().execute(async (tx) => {
      const read = () => tx.selectFrom('thing').select('label').where('id', '=', 2).execute();
      return [await read(), await read(), await read()];
    });
    expect(labels).toEqual([[{ label: 'two' }], [{ label: 'two' }], [{ label: 'two' }]]);
    expect(await prepared()).toContain('select "label" from "thing" where "id" = $1');
  });

  it('runs every statement unnamed once the server lost one it had prepared', async () => {
    const readTwo = () => db.selectFrom('thing').select('label').where('id', '>', 1).execute();
    await readTwo();
    await readTwo();
    expect(await prepared()).toContain('select "label" from "thing" where "id" > $1');
    // What a pooler handing out another server connection does to the statements prepared.
    await sql`deallocate all`.execute(db);
    await expect(readTwo()).rejects.toMatchObject({ code: '26000' });
    expect(await readTwo()).toEqual([{ label: 'two' }]);
    expect(await readTwo()).toEqual([{ label: 'two' }]);
    expect(await prepared()).toEqual([]);
    expect(names.size).toBe(0);
  });
});
