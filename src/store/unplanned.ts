import { type RawBuilder, sql } from 'kysely';
import type { Engine } from './location.js';

/**
 * A parameter SQLite's planner does not read. SQLite prepares a statement again each time a
 * parameter its planner read (a value compared with `sqlite_stat4` samples, an integer `LIMIT`)
 * is bound again, and for a listing's small statements that cost more than running them (a
 * page of scans' ids: 137 µs prepared again, 46 µs kept, measured). For statements with one
 * sensible plan only (one key range, or the index named): planned without the value, the plan
 * is the same.
 */
export function unplanned<T extends string | number>(value: T): RawBuilder<T> {
  return sql<T>`(select ${value})`;
}

/**
 * {@link unplanned} on SQLite; the value itself on PostgreSQL, where a statement with one plan is
 * planned once by the connections that run it (`Connection.readsPlannedOnce`).
 */
export function unplannedOn<T extends string | number>(engine: Engine, value: T): T | RawBuilder<T> {
  return engine === 'sqlite' ? unplanned(value) : value;
}
