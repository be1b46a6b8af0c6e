import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { BUCKET_MS } from './buckets.js';
import type { Engine } from './location.js';
import type { Database } from './schema.js';
import { fold } from './tx.js';

/**
 * `name_folded` contains the case-folded term as a plain substring. `instr`/`strpos` compare
 * characters, not patterns, so `%`, `_`, quotes, backslashes and any Unicode text match literally.
 */
export function nameContains(engine: Engine, term: string): Expression<SqlBool> {
  const folded = fold(term);
  return engine === 'sqlite'
    ? sql<SqlBool>`instr(name_folded, ${folded}) > 0`
    : sql<SqlBool>`strpos(name_folded, ${folded}) > 0`;
}

/**
 * {@link nameContains} for scans. PostgreSQL: `LIKE` with `\`, `%` and `_` escaped (as literal
 * as `strpos`), which its planner may serve by the `pg_trgm` index of migration 0009 when few
 * names hold the term's trigrams.
 */
export function scanNameContains(engine: Engine, term: string): Expression<SqlBool> {
  if (engine === 'sqlite') return nameContains(engine, term);
  return sql<SqlBool>`name_folded like ${`%${fold(term).replace(/[\\%_]/g, '\\$&')}%`}`;
}

/** A span of creation times, `from` inclusive, `to` exclusive (epoch ms). */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/** Days apart by at most this are read as one span: a day between them costs less than a query. */
export const SPAN_GAP_MS = 7 * BUCKET_MS;

/** At most this many spans per search: on SQLite each is a query of its own. */
export const MAX_SPANS = 8;

/**
 * The spans of days, newest first, whose scans a search of `term` must read: the days
 * whose names hold every pair of consecutive characters of the folded term (`scan_name_pair`,
 * migration 0019). Empty when no day holds them all (no scan can match); undefined for a
 * one-character term, which has no pair. A day can hold every pair without a name holding the
 * term, so the spans narrow what is read, and the literal comparison still decides.
 */
export async function searchSpans(
  db: Kysely<Database>,
  teamId: string,
  term: string,
): Promise<readonly Span[] | undefined> {
  const pairs = pairsOf(fold(term));
  if (pairs.length === 0) return undefined;
  // A day marked '' may hold any pair: its one row counts for all of them.
  const days = await db
    .selectFrom('scan_name_pair')
    .select('bucket')
    .where('team_id', '=', teamId)
    .where('pair', 'in', [...pairs, ''])
    .groupBy('bucket')
    .having(sql<number>`sum(case when pair = '' then ${pairs.length} else 1 end)`, '>=', pairs.length)
    .orderBy('bucket', 'desc')
    .execute();
  return spansOf(days.map((day) => Number(day.bucket)));
}

/** The distinct pairs of consecutive characters (code points, as SQL's `substr` counts them). */
export function pairsOf(folded: string): string[] {
  const characters = [...folded];
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < characters.length; i++) pairs.add(characters[i]! + characters[i + 1]!);
  return [...pairs];
}

/**
 * Days (bucket starts, newest first) as spans: days at most {@link SPAN_GAP_MS} apart join one
 * span, and beyond {@link MAX_SPANS} spans only the widest gaps still split them.
 */
export function spansOf(days: readonly number[]): Span[] {
  if (days.length === 0) return [];
  const gaps = days.slice(1).map((day, i) => ({ after: i, width: days[i]! - (day + BUCKET_MS) }));
  const cuts = new Set(
    gaps
      .filter((gap) => gap.width > SPAN_GAP_MS)
      .sort((a, b) => b.width - a.width)
      .slice(0, MAX_SPANS - 1)
      .map((gap) => gap.after),
  );
  const spans: Span[] = [];
  let to = days[0]! + BUCKET_MS;
  for (let i = 0; i < days.length; i++) {
    if (i === days.length - 1 || cuts.has(i)) {
      spans.push({ from: days[i]!, to });
      if (i + 1 < days.length) to = days[i + 1]! + BUCKET_MS;
    }
  }
  return spans;
}
