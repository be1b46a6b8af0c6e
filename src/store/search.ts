import { type Expression, type SqlBool, sql } from 'kysely';
import type { Engine } from './location.js';
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
