import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
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

/** Above this many scans whose names hold a term's trigrams, walking the listing's order is faster. */
export const TRIGRAM_CANDIDATES = 2_000;

/**
 * {@link nameContains} for scans, through the trigram index of migration 0009 where it narrows
 * the search. PostgreSQL: `LIKE` with `\`, `%` and `_` escaped (literal, as `strpos`), which the
 * `pg_trgm` index serves and the planner weighs. SQLite: terms of three characters or more whose
 * trigrams a few scans hold are looked up in the FTS5 table; the others (short or common terms,
 * whose matches the newest-first walk meets early) are compared on each name. The literal
 * comparison stays in every case, so the trigram index only decides which rows are read.
 */
export async function scanNameContains(
  db: Kysely<Database>,
  engine: Engine,
  term: string,
): Promise<NameFilter> {
  const folded = fold(term);
  if (engine === 'postgres')
    return {
      filter: sql<SqlBool>`name_folded like ${`%${folded.replace(/[\\%_]/g, '\\$&')}%`}`,
      fromCandidates: false,
    };
  const literal = { filter: nameContains(engine, term), fromCandidates: false };
  if ([...folded].length < 3) return literal;
  const phrase = `"${folded.replaceAll('"', '""')}"`;
  const probe = await sql<{ n: number }>`select count(*) as n from (
      select 1 from scan_name_search where scan_name_search match ${phrase} limit ${TRIGRAM_CANDIDATES}
    ) candidates`.execute(db);
  if (Number(probe.rows[0]?.n ?? 0) >= TRIGRAM_CANDIDATES) return literal;
  return {
    filter: sql<SqlBool>`id in (select scan_id from scan_name_search where scan_name_search match ${phrase}) and ${literal.filter}`,
    fromCandidates: true,
  };
}

export interface NameFilter {
  readonly filter: Expression<SqlBool>;
  /**
   * The filter names its few candidate scans (SQLite's trigram lookup): they should be read by
   * id and sorted, not found by walking the team's newest-first index, which SQLite would
   * otherwise choose to spare the sort.
   */
  readonly fromCandidates: boolean;
}
