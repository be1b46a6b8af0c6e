import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { BUCKET_MS, SPAN_MS } from './buckets.js';
import type { Engine } from './location.js';
import type { Database } from './schema.js';
import { fold } from './tx.js';
import { unplanned } from './unplanned.js';

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
 * The spans of days, newest first, whose scans a search of `term` must read: the days whose
 * names hold every gram of the folded term (`scan_name_gram`, migration 0021): its runs of three
 * consecutive characters, or its one pair for a term of two. Empty when no day holds them all (no
 * scan can match); undefined for a one-character term, which has no gram. A day can hold every
 * gram without a name holding the term, so the spans narrow what is read, and the literal
 * comparison still decides.
 */
export async function searchSpans(
  reads: { readonly engine: Engine; readonly db: Kysely<Database> },
  teamId: string,
  term: string,
): Promise<readonly Span[] | undefined> {
  const grams = gramsOf(fold(term));
  if (grams.length === 0) return undefined;
  const held = [...grams, ''];
  // On SQLite one statement for every term, prepared once (see `unplanned`).
  const rows =
    reads.engine === 'sqlite'
      ? (
          await sql<GramRow>`select g.value as gram, s.span, s.days from json_each(${JSON.stringify(held)}) g
            join scan_name_gram s on s.team_id = ${unplanned(teamId)} and s.gram = g.value`.execute(reads.db)
        ).rows
      : await reads.db
          .selectFrom('scan_name_gram')
          .select(['gram', 'span', 'days'])
          .where('team_id', '=', teamId)
          // One statement for terms of any length, planned once (see `Connection.readsPlannedOnce`).
          .where(sql<SqlBool>`gram = any(${held}::text[])`)
          .execute();
  return spansOf(daysHolding(grams, rows));
}

interface GramRow {
  readonly gram: string;
  readonly span: number | string;
  readonly days: number;
}

/**
 * The days (starts, newest first) of the spans' rows that hold every gram: a day marked with ''
 * (a name too long for the triggers) may hold any.
 */
export function daysHolding(grams: readonly string[], rows: readonly GramRow[]): number[] {
  const spans = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const span = Number(row.span);
    const held = spans.get(span) ?? new Map<string, number>();
    held.set(row.gram, row.days);
    spans.set(span, held);
  }
  const days: number[] = [];
  for (const span of [...spans.keys()].sort((a, b) => b - a)) {
    const held = spans.get(span)!;
    const any = held.get('') ?? 0;
    let all = -1;
    for (const gram of grams) all &= (held.get(gram) ?? 0) | any;
    for (let day = DAYS_PER_SPAN - 1; day >= 0; day--) {
      if (((all >>> day) & 1) === 1) days.push(span + day * BUCKET_MS);
    }
  }
  return days;
}

/** The days a row of `scan_name_gram` marks, a bit each. */
const DAYS_PER_SPAN = SPAN_MS / BUCKET_MS;

/**
 * The distinct grams of a folded term that a day must hold to hold the term: its runs of three
 * consecutive characters (code points, as SQL's `substr` counts them), which imply its pairs; for
 * a term of two characters, the term; none for one.
 */
export function gramsOf(folded: string): string[] {
  const characters = [...folded];
  const length = characters.length < 3 ? characters.length : 3;
  const grams = new Set<string>();
  if (length < 2) return [];
  for (let i = 0; i + length <= characters.length; i++) grams.add(characters.slice(i, i + length).join(''));
  return [...grams];
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
