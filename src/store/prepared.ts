import type {
  PostgresCursorConstructor,
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryResult,
} from 'kysely';
import type pg from 'pg';

/** SQLSTATE of "cached plan must not change result type": a prepared `select *` after its table changed. */
const PLAN_CHANGED_RESULT = '0A000';

/**
 * SQLSTATE of "prepared statement … does not exist": the server lost what this connection had
 * prepared, as behind a pooler that hands each transaction another server connection
 * (PgBouncer's transaction mode before 1.21).
 */
const STATEMENT_GONE = '26000';

/** SQLSTATE of "unrecognized configuration parameter". */
const UNKNOWN_SETTING = '42704';

/** Longer texts (bulk inserts of many rows) always run unnamed: they are not the repeated reads. */
const LONGEST_NAMED = 16_384;

/**
 * Names for the statements the store runs again and again, so that each PostgreSQL connection
 * parses and analyses a statement once (and plans it for each run, or once: see
 * {@link preparingPool}).
 *
 * node-postgres sends every query with values as an unnamed statement, which PostgreSQL parses
 * and analyses anew each time. A statement gets a name the second time its text is run (one-off
 * texts such as migrations stay unnamed), and up to `limit` texts are named for the life of the
 * process: named statements stay prepared on each connection until it closes, so the limit
 * bounds what a connection holds. The texts are Kysely's, with values as parameters, so the
 * store's shapes of queries are a few hundred at most.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  private issued = 0;
  private disabled = false;

  constructor(private readonly limit = 500) {}

  /** The name to run `text` under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined {
    if (this.disabled || text.length > LONGEST_NAMED) return undefined;
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.limit) return name;
    if (!this.seen.has(text)) {
      // Bounded like the names: past it, first uses are forgotten rather than kept forever.
      if (this.seen.size >= this.limit * 4) this.seen.clear();
      this.seen.add(text);
      return undefined;
    }
    this.seen.delete(text);
    const issued = `keyhole_${(this.issued++).toString(36)}`;
    this.names.set(text, issued);
    return issued;
  }

  /**
   * Forgets `text`'s name after PostgreSQL refused to run it as prepared (its tables changed
   * under it): its next run is parsed again under a new name on every connection.
   */
  retire(text: string): void {
    this.names.delete(text);
  }

  /** Runs every statement unnamed from now on: the server does not keep what was prepared. */
  disable(): void {
    this.disabled = true;
    this.names.clear();
    this.seen.clear();
  }

  get size(): number {
    return this.names.size;
  }
}

/**
 * How a pool's connections plan a named statement: `each run` for the values of that run
 * (`force_custom_plan`), or `once` for any values (`force_generic_plan`), for statements that
 * have one sensible plan whatever their values.
 */
export type Planning = 'each run' | 'once';

const PLAN_CACHE_MODE: Record<Planning, string> = {
  'each run': 'force_custom_plan',
  once: 'force_generic_plan',
};

/**
 * `pool` for Kysely's PostgreSQL dialect, its clients running each query under the name
 * `names` gives its text (see {@link StatementNames}), planned as `planning` says.
 *
 * Left to choose, PostgreSQL switched a search of scan names to a plan made without its term
 * after five runs, and common terms took twice as long by it; with every statement planned once
 * the mix of listings fell to a quarter (measured): plans that depend on values are the rule, and
 * a pool plans `once` only the statements chosen for it. Planned once, a page of scans or of
 * retest results is spared 0.3–0.6 ms of planning a run (measured).
 */
export function preparingPool(pool: pg.Pool, planning: Planning, names = new StatementNames()): PostgresPool {
  const configured = new WeakSet<pg.PoolClient>();
  return {
    connect: async () => {
      const client = await pool.connect();
      if (!configured.has(client)) {
        try {
          await client.query(`set plan_cache_mode = ${PLAN_CACHE_MODE[planning]}`);
        } catch (error) {
          // A server before PostgreSQL 12 has no such setting: there every statement runs unnamed.
          if ((error as { code?: unknown }).code !== UNKNOWN_SETTING) {
            client.release(error as Error);
            throw error;
          }
          names.disable();
        }
        configured.add(client);
      }
      return preparingClient(client, names);
    },
    end: () => pool.end(),
  };
}

function preparingClient(client: pg.PoolClient, names: StatementNames): PostgresPoolClient {
  const run = async <R>(text: string, values: readonly unknown[]): Promise<PostgresQueryResult<R>> => {
    const name = names.nameOf(text);
    if (name === undefined) return client.query(text, values as unknown[]) as never;
    try {
      return (await client.query({ name, text, values: values as unknown[] })) as never;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === PLAN_CHANGED_RESULT) names.retire(text);
      if (code === STATEMENT_GONE) names.disable();
      throw error;
    }
  };
  return {
    query: ((query: string | InstanceType<PostgresCursorConstructor>, values?: readonly unknown[]) =>
      typeof query === 'string' ? run(query, values ?? []) : client.query(query as never)) as never,
    release: () => client.release(),
  };
}
