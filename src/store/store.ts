import { sql } from 'kysely';
import { AssetLists } from './assets.js';
import { FindingBrowser } from './browse.js';
import { ScanChunks } from './chunks.js';
import { type Connection, type ConnectOptions, connect } from './connect.js';
import { StoreMissingError } from './errors.js';
import { FindingPages } from './finding-pages.js';
import { Findings } from './findings.js';
import { freshRead } from './fresh-read.js';
import { ApiKeys } from './keys.js';
import { describeLocation, type Engine, type StoreLocation } from './location.js';
import { adviceAfter, hasSchema, isSchemaCurrent, migrateToLatest } from './migrate.js';
import { RetestRequests } from './retest-requests.js';
import { Retests } from './retests.js';
import { ScanAuth } from './scan-auth.js';
import { ScanRuns } from './scan-runs.js';
import { Scans } from './scans.js';
import { Teams } from './teams.js';
import { Triage } from './triage.js';

export interface OpenOptions extends ConnectOptions {
  /**
   * Apply pending migrations on open (default true: every command migrates on first use). With
   * `create: false` they upgrade an existing store only: a database without keyhole's schema is
   * a `StoreMissingError`.
   */
  readonly migrate?: boolean;
}

/**
 * The store: teams, API keys, asset lists, scans, findings and retest results, on SQLite or
 * PostgreSQL. Every method is one committed unit of work; reads that take a `teamId` only ever
 * see that team's rows.
 */
export class Store {
  readonly teams: Teams;
  readonly keys: ApiKeys;
  readonly assets: AssetLists;
  readonly scans: Scans;
  readonly findings: Findings;
  /** Pages of a scan's findings, filtered and sorted, and comparisons of two scans (the dashboard's tables). */
  readonly browse: FindingBrowser;
  /** Pages of a team's findings, filtered, with their total. */
  readonly findingPages: FindingPages;
  readonly retests: Retests;
  /** Retests asked for through the API, until `keyhole serve` (SQLite) or a worker runs them. */
  readonly retestRequests: RetestRequests;
  readonly triage: Triage;
  /** The chunks of queued scans (PostgreSQL only). */
  readonly chunks: ScanChunks;
  /** How authenticated each scan was, per secret-file entry. */
  readonly authentication: ScanAuth;
  /** The template runs of each scan that finished (for `-resume`). */
  readonly runs: ScanRuns;

  constructor(
    readonly location: StoreLocation,
    /** The connection, for bulk work and benchmarks; prefer the repositories above. */
    readonly connection: Connection,
  ) {
    this.teams = new Teams(connection.db);
    this.keys = new ApiKeys(connection.db);
    this.assets = new AssetLists(connection);
    this.scans = new Scans(connection);
    this.findings = new Findings(connection);
    this.browse = new FindingBrowser(connection);
    this.findingPages = new FindingPages(connection);
    this.retests = new Retests(connection);
    this.retestRequests = new RetestRequests(connection);
    this.triage = new Triage(connection);
    this.chunks = new ScanChunks(connection);
    this.authentication = new ScanAuth(connection);
    this.runs = new ScanRuns(connection);
  }

  get engine(): Engine {
    return this.connection.engine;
  }

  /** Applies pending migrations; returns the names applied (none when the schema is current). */
  async migrate(): Promise<string[]> {
    if (await isSchemaCurrent(this.connection.db)) return [];
    return migrateToLatest(this.connection.db, this.engine);
  }

  /** What to do by hand after the migrations `applied` (see `adviceAfter`); empty for nothing. */
  adviceAfter(applied: readonly string[]): Promise<string[]> {
    return adviceAfter(this.connection.db, this.engine, applied);
  }

  /**
   * A token that changes whenever the visible data may have changed, for caches of what was read.
   * Equal tokens mean identical data.
   *
   * SQLite: the connection's `data_version` (commits by other connections) and `total_changes()`
   * (its own writes), read after the call; while that connection is inside a transaction, a token
   * of its own for each call, equal to no other (see `SqliteChanges`).
   *
   * PostgreSQL: a generation number, with no round trip. One dedicated connection, opened on the
   * first call (or a listing's first use of kept counts, see `KeptCounts`), `LISTEN`s to the
   * database's change channel (statement triggers on every table the API reads notify it at
   * commit, see migration 0004); each notification bumps the generation, and so does each write
   * this store commits, as the commit returns, so this process reads its own writes at once.
   * Another process's commit is seen when its
   * notification arrives: normally well under a millisecond after the commit, during which a
   * request may still be answered from the data as it was. Writes to other databases on the same
   * server do not move the token. While that connection is not listening (it is connecting, or
   * was lost and is reconnecting with backoff), the token falls back to the current snapshot
   * (`pg_current_snapshot()`, read after the call, one round trip shared by the calls made while
   * a read is under way), and the generation is bumped each time listening (re)starts, since
   * anything may have changed meanwhile. The connection counts as listening only while it hears
   * its own heartbeat (see `ChangeListener`): one cut without the socket closing misses
   * notifications for 8 s at most, one behind a pooler that never delivers them never counts.
   */
  async changeToken(): Promise<string> {
    const { connection } = this;
    if (connection.engine === 'sqlite') return connection.changes.token() ?? `t${this.unsettled++}`;
    const generation = connection.watch.heardGeneration();
    if (generation !== undefined) return `g${generation}`;
    this.snapshotToken ??= freshRead(async () => {
      const result = await sql<{ token: string }>`select pg_current_snapshot()::text as token`.execute(
        connection.db,
      );
      return `s${result.rows[0]?.token ?? ''}`;
    });
    return this.snapshotToken();
  }

  /** Counts the tokens given while SQLite's main connection was in a transaction, each unique. */
  private unsettled = 0;
  private snapshotToken: (() => Promise<string>) | undefined;

  /** Resolves when the database answers; throws the driver's error when it does not. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.connection.db);
  }

  async close(): Promise<void> {
    const { connection } = this;
    if (connection.engine === 'postgres') await connection.watch.close();
    const { db, reads, readsPlannedOnce } = connection;
    if (readsPlannedOnce !== reads) await readsPlannedOnce.destroy();
    if (reads !== db) await reads.destroy();
    await db.destroy();
  }
}

export async function openStore(location: StoreLocation, options: OpenOptions = {}): Promise<Store> {
  const store = new Store(location, connect(location, options));
  try {
    if (options.create === false && !(await hasSchema(store.connection.db, location.engine))) {
      throw new StoreMissingError(`${describeLocation(location)} holds no keyhole store`);
    }
    if (options.migrate !== false) await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
