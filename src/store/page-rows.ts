import { type Expression, type SqlBool, sql } from 'kysely';
import type { Engine } from './location.js';

/**
 * `id` among a page's ids: found already, or selected by `ids`, the query of the page's ids.
 *
 * On PostgreSQL as `id = any(array(…))`: the ids are selected first, then their rows read by the
 * primary key, whatever the planner expects of the page's size. Planned once for any values
 * (`Connection.readsPlannedOnce`), `id in (…)` takes a `LIMIT` it cannot see for a tenth of the
 * rows and reads the whole table into a hash to join them (30,100 rows read for a page of 100 of
 * 30,000 scans, measured); a page's ids found already are one parameter, one statement for any
 * number of them.
 */
export function idAmong(engine: Engine, ids: readonly string[] | Expression<unknown>): Expression<SqlBool> {
  if (engine === 'postgres') {
    return Array.isArray(ids)
      ? sql<SqlBool>`id = any(${ids}::text[])`
      : sql<SqlBool>`id = any(array(${ids}))`;
  }
  return Array.isArray(ids)
    ? sql<SqlBool>`id in (${sql.join(ids as readonly string[])})`
    : sql<SqlBool>`id in (${ids})`;
}
