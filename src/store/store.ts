import { sql } from 'kysely';
import { AssetLists } from './assets.js';
import { ScanChunks } from './chunks.js';
import { type Connection, type ConnectOptions, connect } from './connect.js';
import { Findings } from './findings.js';
import { freshRead } from './fresh-read.js';
import { ApiKeys } from './keys.js';
import type { Engine, StoreLocation } from './location.js';
import { isSchemaCurrent, migrateToLatest } from './migrate.js';
import { Retests } from './retests.js';
import { Scans } from './scans.js';
import { Teams } from './teams.js';

export interface OpenOptions extends ConnectOptions {
  /** Apply pending migrations on open (default true: every command migrates on first use). */
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
  readonly retests: Retests;
  /** The chunks of queued scans (PostgreSQL only). */
  readonly chunks: ScanChunks;

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
    this.retests = new Retests(connection);
    this.chunks = new ScanChunks(connection);
  }

  get engine(): Engine {
    return this.connection.engine;
  }

  /** Applies pending migrations; returns the names applied (none when the schema is current). */
  async migrate(): Promise<string[]> {
    if (await isSchemaCurrent(this.connection.db)) return [];
    return migrateToLatest(this.connection.db, this.engine);
  }

  /**
   * A token that changes whenever the visible data may have changed, for caches of what was read.
   * Equal tokens mean identical data: on SQLite the connection's `data_version` (commits by other
   * connections) and `total_changes()` (its own writes); on PostgreSQL the current snapshot
   * (`pg_current_snapshot()`: every write transaction that starts or ends changes it).
   *
   * The token is always read after the call: on PostgreSQL, calls made while a read is under way
   * share the next read (one round trip for all of them) rather than the one already sent, which
   * may predate a write they must see.
   */
  async changeToken(): Promise<string> {
    const { connection } = this;
    if (connection.engine === 'sqlite') {
      this.tokenStatement ??= connection.sqlite
        .prepare("select (select data_version from pragma_data_version()) || '.' || total_changes()")
        .pluck();
      return String(this.tokenStatement.get());
    }
    this.postgresToken ??= freshRead(async () => {
      const result = await sql<{ token: string }>`select pg_current_snapshot()::text as token`.execute(
        connection.db,
      );
      return result.rows[0]?.token ?? '';
    });
    return this.postgresToken();
  }

  private tokenStatement: { get(): unknown } | undefined;
  private postgresToken: (() => Promise<string>) | undefined;

  /** Resolves when the database answers; throws the driver's error when it does not. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.connection.db);
  }

  async close(): Promise<void> {
    await this.connection.db.destroy();
  }
}

export async function openStore(location: StoreLocation, options: OpenOptions = {}): Promise<Store> {
  const store = new Store(location, connect(location, options));
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  }
  return store;
}
