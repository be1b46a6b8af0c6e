import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from './location.js';
import type { Database } from './schema.js';

/**
 * Pieces of JSON text written by the database: the API's pages that it builds in the query that
 * reads them (`Retests.servedPage` on both engines, `Scans.servedPage` on SQLite), so that a page leaves the database
 * as one text rather than rows to decode, make into objects and serialise again.
 */

type Expression = RawBuilder<unknown> | ReturnType<typeof sql.ref>;

/** A text as a JSON string, quotes included (both engines escape as `JSON.stringify` does, or equivalently). */
export function jsonString(engine: Engine, text: Expression): RawBuilder<string> {
  return engine === 'postgres' ? sql`to_json(${text}::text)::text` : sql`json_quote(${text})`;
}

/**
 * Epoch milliseconds as the JSON string `"2024-01-02T03:04:05.678Z"` (what `Date.toISOString` gives
 * for the years 0–9999), `""` for null. The seconds and milliseconds are split with floor division, so a time
 * before 1970 is right too.
 */
export function jsonTimestamp(engine: Engine, ms: Expression): RawBuilder<string> {
  const millis = sql`(((${ms} % 1000) + 1000) % 1000)`;
  const seconds = sql`((${ms} - ${millis}) / 1000)`;
  return engine === 'postgres'
    ? sql`'"' || coalesce(to_char(timestamp 'epoch' + ${seconds} * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS')
        || '.' || lpad((${millis})::text, 3, '0') || 'Z', '') || '"'`
    : sql`'"' || coalesce(strftime('%Y-%m-%dT%H:%M:%S', ${seconds}, 'unixepoch')
        || '.' || substr('00' || ${millis}, -3) || 'Z', '') || '"'`;
}

/** A 0/1 flag as `true`/`false`. */
export function jsonFlag(flag: Expression): RawBuilder<string> {
  return sql`case when ${flag} = 1 then 'true' else 'false' end`;
}

const compiled = new Map<string, RawBuilder<string>>();

/**
 * `build`'s SQL text, compiled the first time and then reused as it is: a page's JSON expression
 * is a tree of hundreds of nodes that Kysely would otherwise compile again for every page
 * (0.17 ms of a page of scans, measured). The expression must take no parameters.
 */
export function compiledOnce(
  db: Kysely<Database>,
  engine: Engine,
  name: string,
  build: (engine: Engine) => RawBuilder<string>,
): RawBuilder<string> {
  const key = `${engine} ${name}`;
  let text = compiled.get(key);
  if (text === undefined) {
    const query = build(engine).compile(db);
    if (query.parameters.length > 0) throw new Error(`${name} must take no parameters`);
    text = sql.raw<string>(query.sql);
    compiled.set(key, text);
  }
  return text;
}
