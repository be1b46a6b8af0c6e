import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from './location.js';
import type { Database } from './schema.js';

/**
 * A scan's lists, kept on its row as the JSON array texts the listings serve (migration 0023):
 * every template id in position order, the public ones, the non-empty urls, and the asset ids in
 * their order. A listing then reads four texts per scan: aggregating each scan's templates as it
 * was listed cost PostgreSQL 0.42 of 0.96 ms for a page of 45 scans with two templates each, and
 * SQLite a third of the statement that writes a page (measured), more with the thousands of
 * templates a scan of the template library runs.
 *
 * Written from the rows after every write of a scan's templates or assets, in the same
 * transaction: one statement per write, not per template.
 */
export async function keepScanLists(db: Kysely<Database>, engine: Engine, scanId: string): Promise<void> {
  await scanListsUpdate(db, engine, scanId).execute();
}

/** The statement {@link keepScanLists} runs (whose plan tests check). */
export function scanListsUpdate(db: Kysely<Database>, engine: Engine, scanId: string) {
  return db.updateTable('scan').set(listsOfRows(engine)).where('id', '=', scanId);
}

/** {@link keepScanLists} for every scan (rows written in bulk, as the benchmark's seeding does). */
export async function keepEveryScanLists(db: Kysely<Database>, engine: Engine): Promise<void> {
  await db.updateTable('scan').set(listsOfRows(engine)).execute();
}

/** The four lists aggregated from the rows of the scan being updated (`scan`). */
function listsOfRows(engine: Engine) {
  const templates = (value: string, where = 'true') =>
    aggregated(engine, `scan_template t where t.scan_id = scan.id and ${where}`, value, 't.position');
  return {
    listed_template_ids: templates('t.template_id'),
    listed_public_templates: templates('t.template_id', 't.is_public = 1'),
    listed_template_urls: templates('t.template_url', "t.template_url <> ''"),
    listed_asset_ids: aggregated(
      engine,
      'scan_asset a where a.scan_id = scan.id',
      'a.asset_id',
      'a.asset_id',
    ),
  };
}

/**
 * A JSON array of `value` over `rows` in `order`, `[]` for none, as `JSON.stringify` writes it
 * (so that a page splices it as it is, see `servedScanText`). On PostgreSQL joined from each
 * value's `to_json`, as `json_agg` writes them but without its space after each comma. On SQLite
 * the rows come ordered from a subquery, which it does not merge into the aggregate reading it:
 * an ordered aggregate sorts them again in a temporary B-tree, where the index gives them in order.
 */
function aggregated(engine: Engine, rows: string, value: string, order: string): RawBuilder<string> {
  return engine === 'postgres'
    ? sql.raw<string>(
        `coalesce('[' || (select string_agg(to_json(${value})::text, ',' order by ${order}) from ${rows}) || ']', '[]')`,
      )
    : sql.raw<string>(
        `coalesce((select json_group_array(v) from (select ${value} as v from ${rows} order by ${order})), '[]')`,
      );
}
