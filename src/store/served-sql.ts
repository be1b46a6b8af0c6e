import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * Pieces of JSON text written by SQLite: the API's pages that it builds in the query that reads
 * them (`Scans.servedPage`, `Retests.servedPage`, `FindingPages.servedPage`), so that a page
 * crosses from the read thread as one text rather than rows to clone, make into objects and
 * serialise again.
 *
 * Not on PostgreSQL, whose pages the API's process writes from their rows (scans by
 * `servedScanText`, retest results and findings from their kept texts, see `Retests.servedPage`
 * and `FindingPages.servedPage`): parsed and planned for every run, a page's JSON expression
 * cost it more than its rows cost to decode (its CPU per page of scans 1.8–2.3 →
 * 3.6–4.9 ms, per page of retest results 2.0–2.6 → 2.5–3.7 ms, measured); prepared and planned
 * once (see prepared.ts), writing a page of 50 scans still cost it 0.3 ms more than sending
 * their rows, about what decoding and rendering them costs the API (measured).
 */

type Expression = RawBuilder<unknown> | ReturnType<typeof sql.ref>;

/** A text as a JSON string, quotes included (`json_quote` escapes as `JSON.stringify` does, or equivalently). */
export function jsonString(text: Expression): RawBuilder<string> {
  return sql`json_quote(${text})`;
}

/**
 * `template_encoded` of the row read as `alias`: its template's text from `template_source` as a
 * JSON string, `""` when it has none.
 */
export function jsonTemplateText(alias: string): RawBuilder<string> {
  return jsonString(
    sql`coalesce((select t.encoded from template_source t where t.hash = ${sql.ref(`${alias}.template_hash`)}), '')`,
  );
}

/**
 * Epoch milliseconds as the JSON string `"2024-01-02T03:04:05.678Z"` (what `Date.toISOString` gives
 * for the years 0–9999), `""` for null. One `strftime`, whose `%f` gives the seconds with their
 * milliseconds: SQLite reads the fraction as whole milliseconds, before 1970 too (equal to
 * splitting them by floor division over the years 0–9999, checked on 300,000 instants).
 */
export function jsonTimestamp(ms: Expression): RawBuilder<string> {
  return sql`'"' || coalesce(strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch'), '') || '"'`;
}

/**
 * Text written in one pass by SQLite's `format`: `parts` are literal text and values, each value
 * put in as `%s` (its text; an integer's digits; NULL as nothing). A chain of `||` copies the text
 * so far at every step: a scan's JSON of some 60 pieces was a third of a page's instructions in
 * growing and copying strings, measured.
 */
export function formatted(parts: readonly (string | RawBuilder<unknown>)[]): RawBuilder<string> {
  const template = parts
    .map((part) => (typeof part === 'string' ? part.replaceAll('%', '%%') : '%s'))
    .join('');
  const values = parts.filter((part): part is RawBuilder<unknown> => typeof part !== 'string');
  const literal = sql.raw(`'${template.replaceAll("'", "''")}'`);
  return values.length === 0
    ? sql<string>`format(${literal})`
    : sql<string>`format(${literal}, ${sql.join(values)})`;
}

/** A 0/1 flag as `true`/`false`. */
export function jsonFlag(flag: Expression): RawBuilder<string> {
  return sql`case when ${flag} = 1 then 'true' else 'false' end`;
}

/**
 * A page's ids, in the listing's order, as the table `page(key, value)` (position, id) that a
 * page's JSON expression joins its rows to, and sorts by `page.key`.
 *
 * SQLite re-prepares a statement each time one of its parameters is bound again if its planner
 * read that parameter's value: values compared with `sqlite_stat4` samples (the team, a time
 * bound) and an integer `LIMIT`, which every listing has. The ids are therefore selected by a
 * statement of their own, small to prepare again, and the large statement that writes the page
 * takes them as one JSON text, a parameter no planner reads: it is prepared once per connection
 * (re-preparing it had cost about a fifth of a page of scans, measured).
 */
export function pageOf(ids: readonly string[]): RawBuilder<unknown> {
  return sql`json_each(${JSON.stringify(ids)})`;
}

/**
 * A page's text as its UTF-8 bytes, as SQLite holds it: a text column would be decoded into a
 * JavaScript string on the read thread and encoded again on the socket (together about a tenth
 * of a page of scans, measured); bytes are copied once between threads and sent as they are.
 */
export function utf8(text: RawBuilder<unknown>): RawBuilder<Uint8Array | null> {
  return sql`cast(${text} as blob)`;
}

/** The bytes a page's query answered (a `Uint8Array` from a read thread), empty for null. */
export function bytesOf(value: Uint8Array | null | undefined): Buffer {
  if (value === null || value === undefined) return Buffer.alloc(0);
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * The JSON texts `item` writes of the rows of `table` (read as `alias`) whose ids are `ids`, in
 * that order, joined by commas, as UTF-8 bytes; undefined when a row on the page has no stored
 * served text in its column `served` (rows recorded before that column existed), which the
 * caller then renders from the rows.
 */
export async function writtenItems(
  db: Kysely<Database>,
  ids: readonly string[],
  from: {
    table: 'retest' | 'finding';
    alias: string;
    /** The column, or an expression of the row, that is null on rows `item` cannot write. */
    served: string | RawBuilder<unknown>;
    item: RawBuilder<string>;
  },
): Promise<Buffer | undefined> {
  if (ids.length === 0) return bytesOf(null);
  const { table, alias, served, item } = from;
  const page = await sql<{ json: Uint8Array | null; unserved: number }>`select
      ${utf8(sql`group_concat(${item}, ',' order by page.key)`)} as json,
      count(*) - count(${typeof served === 'string' ? sql.ref(`${alias}.${served}`) : served}) as unserved
    from ${pageOf(ids)} page join ${sql.table(table)} ${sql.raw(alias)} on ${sql.ref(`${alias}.id`)} = page.value`.execute(
    db,
  );
  const row = page.rows[0];
  if (row !== undefined && row.unserved > 0) return undefined;
  return bytesOf(row?.json);
}

const compiled = new Map<string, RawBuilder<string>>();

/**
 * `build`'s SQL text, compiled the first time and then reused as it is: a page's JSON expression
 * is a tree of hundreds of nodes that Kysely would otherwise compile again for every page
 * (0.17 ms of a page of scans, measured). The expression must take no parameters.
 */
export function compiledOnce(
  db: Kysely<Database>,
  name: string,
  build: () => RawBuilder<string>,
): RawBuilder<string> {
  let text = compiled.get(name);
  if (text === undefined) {
    const query = build().compile(db);
    if (query.parameters.length > 0) throw new Error(`${name} must take no parameters`);
    text = sql.raw<string>(query.sql);
    compiled.set(name, text);
  }
  return text;
}
