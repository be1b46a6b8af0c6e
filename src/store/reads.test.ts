import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CompiledQuery, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_THREAD_SOURCE, ReadThreads } from './reads.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

/** The store as built (`npm run build`), for a process of its own. */
const STORE_MODULE = fileURLToPath(new URL('../../dist/store/index.js', import.meta.url));

/** The threads of this process (Linux). */
function threadCount(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

describe('reads of a SQLite file store', () => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await ENGINES[0].create();
    store = await openStore(database.location);
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  it('run on a connection of their own, not the main one', async () => {
    const { db, reads } = store.connection;
    expect(reads).not.toBe(db);
    // A temporary table is its connection's alone.
    await sql`create temp table marker (x integer)`.execute(db);
    const tables = sql<{ n: number }>`select count(*) as n from temp.sqlite_master`;
    expect((await tables.execute(db)).rows).toEqual([{ n: 1 }]);
    expect((await tables.execute(reads)).rows).toEqual([{ n: 0 }]);
  });

  it('give the rows the main connection gives, with every kind of value and repeated names', async () => {
    const values = sql`select 'plain' as text, 'quote " back\\ \u{1F600} ü' as unicode,
      char(55357) as lone_surrogate, 9007199254740991 as big, -0.1 as fraction, 1e300 as huge,
      null as missing, x'00ff' as blob, 1 as twice, 2 as twice, 4 as "a b", 9e999 as infinite
      union all select '', '', '', 0, 0, 0, 'not null', null, 5, 6, 8, -9e999`;
    const onThread = (await values.execute(store.connection.reads)).rows;
    expect(onThread).toEqual((await values.execute(store.connection.db)).rows);
    expect(onThread[0]).toMatchObject({ twice: 2, big: 9007199254740991, blob: Buffer.from([0, 255]) });
    expect(Buffer.isBuffer((onThread[0] as { blob: unknown }).blob)).toBe(true);
    // Names and values that need quoting.
    const text = sql`select char(55357) || 'x' as s, 1.5 as n, null as z, 'a"b' as "q""uote"
      from (select 1 union all select 2)`;
    expect((await text.execute(store.connection.reads)).rows).toEqual(
      (await text.execute(store.connection.db)).rows,
    );
  });

  it('give a column named __proto__ as a field of the row, never as its prototype', async () => {
    const [row] = (await sql`select 3 as "__proto__", 1 as one`.execute(store.connection.reads)).rows;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row as object)).toEqual([
      ['__proto__', 3],
      ['one', 1],
    ]);
  });

  it('leave the main thread free while a query runs', async () => {
    const slow = sql<{
      n: number;
    }>`with recursive c(i) as (select 1 union all select i + 1 from c where i < 3000000)
      select count(*) as n from c`.execute(store.connection.reads);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      expect((await slow).rows).toEqual([{ n: 3_000_000 }]);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('see each write committed through the main connection at once', async () => {
    const team = await store.teams.ensure('default');
    for (let i = 0; i < 50; i++) {
      const scan = await store.scans.create({ teamId: team.id, name: `scan ${i}` });
      const [newest] = await store.scans.list(team.id, { offset: 0, limit: 1 });
      expect(newest?.id).toBe(scan.id);
    }
  });

  it('fail with the message SQLite gives, as on the main connection', async () => {
    const bad = sql`select * from no_such_table`;
    const message = await bad.execute(store.connection.db).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(message).toBe('no such table: no_such_table');
    await expect(bad.execute(store.connection.reads)).rejects.toThrow(message);
    // The thread answers the next query as before.
    expect((await sql`select 1 as one`.execute(store.connection.reads)).rows).toEqual([{ one: 1 }]);
  });

  it('keep the name and code of a SQLite error', async () => {
    const error = await sql`select * from where`.execute(store.connection.reads).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'SqliteError',
      code: 'SQLITE_ERROR',
      message: 'near "where": syntax error',
    });
  });

  it('run queries only: a write or a transaction is refused', async () => {
    const { reads } = store.connection;
    await expect(sql`delete from team`.execute(reads)).rejects.toThrow(
      'reads run only queries that return rows, not: delete from team',
    );
    await expect(sql`begin`.execute(reads)).rejects.toThrow('reads run only queries that return rows');
    await expect(reads.transaction().execute(async () => undefined)).rejects.toThrow(
      'reads run no transactions',
    );
  });

  it('answer a short query on a second thread while a long one runs', async () => {
    const { reads } = store.connection;
    let longDone = false;
    const long = sql`with recursive c(i) as (select 1 union all select i + 1 from c where i < 3000000)
      select count(*) as n from c`
      .execute(reads)
      .then(() => {
        longDone = true;
      });
    expect((await sql`select 1 as one`.execute(reads)).rows).toEqual([{ one: 1 }]);
    expect(longDone).toBe(false);
    await long;
  });

  it('answer many queries waiting at once, each with its own rows', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        sql<{ n: number }>`select ${i} as n`.execute(store.connection.reads),
      ),
    );
    expect(answers.map((answer) => answer.rows[0]?.n)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('end their thread when the store closes, and refuse queries after', async () => {
    const before = threadCount();
    const { reads } = store.connection;
    await sql`select 1`.execute(reads);
    expect(threadCount()).toBeGreaterThan(before);
    await store.close();
    expect(threadCount()).toBe(before);
    await expect(sql`select 1`.execute(reads)).rejects.toThrow('destroyed');
    store = await openStore(database.location);
  });

  it('leave a process that did not close the store free to end (the built store, in a process of its own)', async () => {
    const script = `import { openStore } from ${JSON.stringify(STORE_MODULE)};
      const store = await openStore(${JSON.stringify(database.location)});
      const team = await store.teams.ensure('default');
      await store.scans.create({ teamId: team.id, name: 'a scan' });
      const scans = await store.scans.list(team.id, { offset: 0, limit: 10 });
      process.stdout.write(String(scans.length));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
      status: 0,
      stdout: '1',
      stderr: '',
    });
  });

  it('reject the queries waiting on a thread that ended, and start another for the next', async () => {
    // A thread that ends, as one that fails would, when asked `end`.
    const ending = `require('node:worker_threads').parentPort.on('message', (m) => {
      if (m.sql === 'end') process.exit(3);
    });\n${READ_THREAD_SOURCE}`;
    const threads = new ReadThreads(pathOf(database), 1, store.connection.db, ending);
    try {
      expect(await threads.query(CompiledQuery.raw('select 1 as one'))).toEqual([{ one: 1 }]);
      const ended = threads.query(CompiledQuery.raw('end'));
      const waiting = threads.query(CompiledQuery.raw('select 2 as two'));
      await expect(ended).rejects.toThrow("the store's read thread ended");
      await expect(waiting).rejects.toThrow("the store's read thread ended");
      // A temporary table of the main connection tells whether it answers: not here.
      await sql`create temp table marker (x integer)`.execute(store.connection.db);
      const tables = CompiledQuery.raw('select count(*) as n from temp.sqlite_master');
      expect(await threads.query(tables)).toEqual([{ n: 0 }]);
    } finally {
      await threads.close();
    }
  });

  it('run on the main connection when their thread cannot start', async () => {
    const threads = new ReadThreads(pathOf(database), 1, store.connection.db, 'throw new Error("no start")');
    try {
      await expect(threads.query(CompiledQuery.raw('select 1 as one'))).rejects.toThrow(
        "the store's read thread ended: no start",
      );
      await sql`create temp table marker (x integer)`.execute(store.connection.db);
      const tables = CompiledQuery.raw('select count(*) as n from temp.sqlite_master');
      expect(await threads.query(tables)).toEqual([{ n: 1 }]);
    } finally {
      await threads.close();
    }
  });
});

function pathOf(database: TestDatabase): string {
  if (database.location.engine !== 'sqlite') throw new Error('a SQLite file store was expected');
  return database.location.path;
}

describe('reads', () => {
  it('are the main connection on an in-memory SQLite store', async () => {
    const store = await openStore({ engine: 'sqlite', path: ':memory:', isDefault: false });
    try {
      expect(store.connection.reads).toBe(store.connection.db);
    } finally {
      await store.close();
    }
  });

  it('are the main connection when no thread is asked for', async () => {
    const database = await ENGINES[0].create();
    const store = await openStore(database.location, { readThreads: 0 });
    try {
      expect(store.connection.reads).toBe(store.connection.db);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('are connections of their own on PostgreSQL, planned for each run or once, that see a write at once', async () => {
    const database = await ENGINES[1].create();
    const store = await openStore(database.location);
    try {
      const { db, reads, readsPlannedOnce } = store.connection;
      expect(new Set([db, reads, readsPlannedOnce]).size).toBe(3);
      const mode = async (on: typeof db) =>
        (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(on)).rows[0]?.plan_cache_mode;
      // The writes' connections keep the server's setting: their triggers' plans are reused.
      expect([await mode(reads), await mode(readsPlannedOnce), await mode(db)]).toEqual([
        'force_custom_plan',
        'force_generic_plan',
        'auto',
      ]);
      const team = await store.teams.ensure('written just now');
      for (const on of [reads, readsPlannedOnce]) {
        const read = await on
          .selectFrom('team')
          .select('id')
          .where('name', '=', 'written just now')
          .execute();
        expect(read).toEqual([{ id: team.id }]);
      }
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
