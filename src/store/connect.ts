import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { ChangeWatch } from './change-listener.js';
import { ChangeCounter, ChangeCountingDialect } from './changes.js';
import { StoreMissingError, StoreUnavailableError } from './errors.js';
import { KeptCounts } from './kept-counts.js';
import { describeLocation, type StoreLocation } from './location.js';
import { type Planning, preparingPool, StatementNames } from './prepared.js';
import { ReadThreads, WorkerReadsDialect } from './reads.js';
import type { Database } from './schema.js';
import { SqliteChanges } from './sqlite-changes.js';

export interface ConnectOptions {
  /**
   * PostgreSQL: the most connections the pool for writes and the reads within them opens
   * (default 10), opened as they are used.
   */
  readonly poolSize?: number;
  /**
   * PostgreSQL: the most connections each of the two pools for the listings (`reads` and
   * `readsPlannedOnce`) opens, as they are used (default {@link defaultReadConnections}).
   */
  readonly readConnections?: number;
  /** Called with errors of idle PostgreSQL connections, which have no request to fail. */
  readonly onIdleError?: (error: Error) => void;
  /**
   * Whether opening may create the store (default true). When false, a missing SQLite file is a
   * `StoreMissingError` and nothing is written to disk.
   */
  readonly create?: boolean;
  /**
   * SQLite file in WAL mode: how many threads run `reads` at most (default 2, started as reads
   * need them); 0 runs them on the main connection.
   */
  readonly readThreads?: number;
}

/**
 * An open connection to one engine; `sqlite` is the raw handle, for bulk work the query builder
 * slows. `reads` runs the API's listing queries: on a SQLite file in WAL mode, on read threads
 * (see reads.ts), seeing every write committed through `db` before the query; on PostgreSQL, on
 * connections of their own with their statements prepared (see prepared.ts); elsewhere it is
 * `db`. It begins no transactions: writes, and reads within a write's transaction, use `db`.
 * `readsPlannedOnce` runs the listings that have one plan whatever their values (one key range of
 * one index, a page's rows by id): on PostgreSQL on connections that plan each statement once
 * rather than for every run; elsewhere it is `reads`.
 */
export type Connection =
  | {
      readonly engine: 'sqlite';
      readonly db: Kysely<Database>;
      readonly reads: Kysely<Database>;
      readonly readsPlannedOnce: Kysely<Database>;
      readonly sqlite: SqliteDatabase.Database;
      /** Whether the file's data may have changed (see `Store.changeToken`). */
      readonly changes: SqliteChanges;
      /**
       * The team's findings per id bucket (for each filter by severity and status), kept while
       * `changes` does not move: of a listing's counts, those that cost a SQLite read as much as
       * a page's rows (see `FindingPages`).
       */
      readonly kept: KeptCounts;
      /** The tallies of searches of findings, kept likewise. */
      readonly keptSearches: KeptCounts;
      /** Where every 128th finding of an id bucket lies, kept likewise (see positions.ts). */
      readonly keptPositions: KeptCounts;
    }
  | {
      readonly engine: 'postgres';
      readonly db: Kysely<Database>;
      readonly reads: Kysely<Database>;
      readonly readsPlannedOnce: Kysely<Database>;
      readonly pool: pg.Pool;
      /** Bumped after each write committed through `db` (see `Store.changeToken`). */
      readonly changes: ChangeCounter;
      /** `changes`, also bumped by the changes other connections announce (see `Store.changeToken`). */
      readonly watch: ChangeWatch;
      /** The listings' counts per day and per id bucket, kept while `watch` hears no change. */
      readonly kept: KeptCounts;
      /**
       * The tallies of searches of findings, kept likewise: fewer of them, as each may name up to
       * `SEARCH_CANDIDATES` targets and templates.
       */
      readonly keptSearches: KeptCounts;
      /**
       * Where every 128th row of a day's (or an id bucket's) listing lies (`POSITION_STRIDE`),
       * kept likewise, so a deep page skips less than a stride past the nearest (see positions.ts).
       */
      readonly keptPositions: KeptCounts;
    };

/**
 * The listings' kept counts: PostgreSQL's. SQLite reads its counts per day on the read threads each
 * time (each a few dozen rows on an index); it keeps only its findings' counts, search tallies and
 * positions (`conn.kept`, `conn.keptSearches`, `conn.keptPositions`, see `FindingPages`).
 */
export function keptCounts(conn: Connection): KeptCounts | undefined {
  return conn.engine === 'postgres' ? conn.kept : undefined;
}

/** The kept positions of a listing's days and id buckets: PostgreSQL's, as {@link keptCounts}. */
export function keptPositions(conn: Connection): KeptCounts | undefined {
  return conn.engine === 'postgres' ? conn.keptPositions : undefined;
}

/**
 * Sets of positions kept at most: a year of days for each of a few listings (each set a few dozen
 * keys), for a few teams; about 100 bytes a key.
 */
const KEPT_POSITIONS = 8_192;

/** Searches' tallies kept at most: each up to 5,000 targets and 5,000 templates, tens of MB at worst. */
const KEPT_SEARCHES = 64;

const INT8_OID = 20;

export function connect(location: StoreLocation, options: ConnectOptions = {}): Connection {
  if (location.engine === 'sqlite') {
    const sqlite = openSqlite(location, options.create !== false);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    const threads = options.readThreads ?? 2;
    // Other connections read only what is committed to the file in WAL mode (an in-memory
    // database is this connection's alone).
    const threaded =
      threads > 0 &&
      location.path !== ':memory:' &&
      sqlite.pragma('journal_mode', { simple: true }) === 'wal';
    const reads = threaded
      ? new Kysely<Database>({ dialect: new WorkerReadsDialect(new ReadThreads(location.path, threads, db)) })
      : db;
    const changes = new SqliteChanges(sqlite);
    const kept = new KeptCounts(() => changes.generation());
    const keptSearches = new KeptCounts(() => changes.generation(), KEPT_SEARCHES);
    const keptPositions = new KeptCounts(() => changes.generation(), KEPT_POSITIONS);
    const keeping = { changes, kept, keptSearches, keptPositions };
    return { engine: 'sqlite', sqlite, db, reads, readsPlannedOnce: reads, ...keeping };
  }
  const pool = openPool(location.url, options);
  const changes = new ChangeCounter();
  const dialect = new ChangeCountingDialect(new PostgresDialect({ pool }), changes);
  const db = new Kysely<Database>({ dialect });
  // The listings run on a pool of their own, their statements prepared (see prepared.ts). Not the
  // writes: `plan_cache_mode` is a connection's setting, and forced on the writes' connections it
  // made PL/pgSQL plan its triggers' statements again for every row (imports 30 % slower, measured).
  // One set of names for both pools: what the server keeps of them is the same for all of the
  // process's connections (a pooler that loses them turns naming off for both at its first sign).
  const names = new StatementNames();
  const readPool = { ...options, poolSize: options.readConnections ?? defaultReadConnections() };
  const readsOn = (planning: Planning) =>
    new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: preparingPool(openPool(location.url, readPool), planning, names),
      }),
    });
  const reads = readsOn('each run');
  const readsPlannedOnce = readsOn('once');
  const watch = new ChangeWatch(location.url, changes, db);
  const kept = new KeptCounts((tables) => watch.heardGeneration(tables));
  const keptSearches = new KeptCounts((tables) => watch.heardGeneration(tables), KEPT_SEARCHES);
  const keptPositions = new KeptCounts((tables) => watch.heardGeneration(tables), KEPT_POSITIONS);
  return {
    engine: 'postgres',
    pool,
    changes,
    watch,
    kept,
    keptSearches,
    keptPositions,
    db,
    reads,
    readsPlannedOnce,
  };
}

/**
 * The connections each listing pool opens unless told: this machine's cores, 2 to 10. Listings
 * keep PostgreSQL's CPU busy, and more of them at once than it has cores to run them cost it more
 * per listing, not less: a mix of distinct listings on two cores (API and PostgreSQL on one
 * machine) cost PostgreSQL 1.1–1.3 ms of CPU per response with pools of 2 or 3 connections,
 * 1.7–2.1 ms with 6 or 10, and was served a third faster (measured, BENCHMARKS.md). A database
 * with more cores than the API's machine is given more with `KEYHOLE_DB_READ_CONNECTIONS`.
 */
function defaultReadConnections(): number {
  return Math.min(10, Math.max(2, availableParallelism()));
}

function openPool(url: string, options: ConnectOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // Client-side bound too: a server that stops answering must not hang a request forever.
    query_timeout: 60_000,
    application_name: 'keyhole',
    types: {
      // Timestamps (epoch ms) and counters are bigints; all fit a double exactly.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (text: string) => Number(text) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
  // Without a listener an idle connection's error (server restart, network cut) would end the process.
  pool.on('error', (error) => options.onIdleError?.(error));
  // The same for a connection in use: the pool listens only while a client is idle, and a cut while
  // a query runs also emits `error` on the client. The query itself fails with that error.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

function openSqlite(
  location: Extract<StoreLocation, { engine: 'sqlite' }>,
  create: boolean,
): SqliteDatabase.Database {
  const inMemory = location.path === ':memory:';
  if (!inMemory) {
    if (create) createPrivately(location);
    else if (!existsSync(location.path)) {
      throw new StoreMissingError(`${describeLocation(location)} does not exist`);
    }
  }
  let sqlite: SqliteDatabase.Database;
  try {
    sqlite = new SqliteDatabase(location.path, { timeout: 5_000, fileMustExist: !create && !inMemory });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(
      `cannot open ${describeLocation(location)}: ${reason} (does its folder exist and is it writable?)`,
      { cause: error },
    );
  }
  // A store keyhole made is in WAL mode already (the mode is kept in the file): a store opened
  // as it is must not be changed by being opened.
  if (create && !inMemory) sqlite.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a committed write survives a crash of the process (not of the machine),
  // without an fsync per finding recorded.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Reads map the file instead of copying pages through read(2), and a larger page cache keeps
  // the listing indexes in memory: deep pages walk hundreds of thousands of index entries.
  sqlite.pragma('mmap_size = 1073741824');
  sqlite.pragma('cache_size = -65536');
  return sqlite;
}

/**
 * Creates the store's file readable and writable by its owner only (0600), before SQLite opens it:
 * the store holds session values extracted during scans. SQLite gives the WAL and shared-memory
 * files it creates beside it the database file's mode. The default `.keyhole/` folder is created
 * 0700. Existing files and folders are left as they are.
 */
function createPrivately(location: Extract<StoreLocation, { engine: 'sqlite' }>): void {
  if (location.isDefault) createPrivateFolder(dirname(location.path));
  let fd: number;
  try {
    fd = openSync(location.path, 'wx', 0o600);
  } catch {
    // It exists, or cannot be created: opening it says which.
    return;
  }
  try {
    // Exactly 0600, whatever the umask.
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function createPrivateFolder(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  chmodSync(path, 0o700);
}

/**
 * The same database handle, with `prepare` remembering the last few hundred statements by their
 * text: Kysely prepares every query it runs, and parsing and planning a statement costs more than
 * running a small one. Statements are reused only one at a time (Kysely holds one connection
 * lock per query and better-sqlite3 runs them synchronously).
 */
function withStatementCache(db: SqliteDatabase.Database, size = 500): SqliteDatabase.Database {
  const statements = new Map<string, SqliteDatabase.Statement>();
  const prepare = (text: string): SqliteDatabase.Statement => {
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = db.prepare(text);
      statements.set(text, statement);
      if (statements.size > size) statements.delete(statements.keys().next().value as string);
    }
    return statement;
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
