import { type RawBuilder, sql } from 'kysely';
import { SEVERITIES } from '../event/index.js';
import type { Engine } from './location.js';
import { jsonFlag, jsonString, jsonTimestamp } from './served-sql.js';

/**
 * A scan as the API lists it (`/v1/scans`), written by the database as JSON text: the fields of
 * docs/store-and-api.md's scan record, in its order, with the values `Scan` and the API's
 * rendering give (timestamps in RFC 3339 with milliseconds, or "" when not set; the elapsed time
 * as a Go duration, whole seconds from a second up; 0/1 flags as booleans; the template and
 * asset lists from their tables).
 *
 * A page of scans is then one text the database builds in C, instead of a row of 25 columns per
 * scan that the driver decodes (on PostgreSQL its protocol parser, on SQLite the read thread's
 * values cloned to the main thread), made into objects and serialised again. The expression
 * reads the scan as `s`, and the request's time (which gives a running scan its elapsed time) as
 * `clock.now`; it has no parameters, so it is compiled once (see {@link compiledOnce}).
 */
export function servedScanJson(engine: Engine): RawBuilder<string> {
  const q = (column: string) => jsonString(engine, sql.ref(`s.${column}`));
  const int = (column: string) => sql.ref(`s.${column}`);
  const bool = (column: string) => jsonFlag(sql.ref(`s.${column}`));
  const severity = SEVERITIES.map(
    (name, i) => sql`${sql.lit(`${i === 0 ? '{' : ','}"${name}":`)} || ${int(`severity_${name}`)}`,
  );
  const elapsed = sql<number>`coalesce(s.elapsed_ms, case when s.status = 'running' and s.started_at is not null then clock.now - s.started_at else 0 end)`;
  return sql<string>`'{"scan_id":' || ${q('id')}
    || ',"status":' || ${q('status')}
    || ',"scan_time_elapsed":"' || ${goDuration(engine, elapsed)} || '"'
    || ',"progress":' || ${int('progress')}
    || ',"failure_reason":' || ${q('failure_reason')}
    || ',"created_at":' || ${jsonTimestamp(engine, int('created_at'))}
    || ',"updated_at":' || ${jsonTimestamp(engine, int('updated_at'))}
    || ',"total_target":' || ${int('total_target')}
    || ',"completed_at":' || ${jsonTimestamp(engine, int('completed_at'))}
    || ',"total_scan":' || ${int('total_scan')}
    || ',"total_template":' || ${int('total_template')}
    || ',"name":' || ${q('name')}
    || ',"severity":' || ${sql.join(severity, sql` || `)} || '}'
    || ',"is_oss":' || ${bool('is_oss')}
    || ',"is_cloud":' || ${bool('is_cloud')}
    || ',"scan_frequency":' || ${q('scan_frequency')}
    || ',"schedule_last_run":' || ${jsonTimestamp(engine, int('schedule_last_run'))}
    || ',"asset_ids":' || ${assetIds(engine)}
    || ',"is_rescan":' || ${bool('is_rescan')}
    || ${templateLists(engine)}
    || '}'`;
}

/**
 * A JSON array of `value` over the rows read, compact (PostgreSQL's `json_agg` puts a space after
 * each comma), optionally only those `where` holds. On PostgreSQL the aggregate orders its rows;
 * on SQLite an ordered aggregate sorts each scan's few rows in a temporary B-tree of its own
 * (most of a page's time, measured), so there the rows come ordered from the subquery they are
 * read from (see {@link orderedRows}), which SQLite's aggregates take in the order they come.
 */
function jsonArray(
  engine: Engine,
  value: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  where?: RawBuilder<unknown>,
) {
  const filter = where === undefined ? sql`` : sql` filter (where ${where})`;
  return engine === 'postgres'
    ? sql`'[' || coalesce(string_agg(to_json(${value})::text, ',' order by ${order})${filter}, '') || ']'`
    : sql`coalesce(json_group_array(${value})${filter}, '[]')`;
}

/**
 * The rows of `table` (as `alias`) that belong to the scan `s`: on SQLite a subquery that reads
 * them in `order` (not flattened into an aggregate query, so the order holds); on PostgreSQL the
 * table itself, its aggregates ordering.
 */
function orderedRows(engine: Engine, table: string, alias: string, order: string): RawBuilder<unknown> {
  const rows = sql`${sql.table(table)} ${sql.raw(alias)} where ${sql.ref(`${alias}.scan_id`)} = s.id`;
  return engine === 'postgres'
    ? rows
    : sql`(select * from ${rows} order by ${sql.ref(`${alias}.${order}`)}) ${sql.raw(alias)}`;
}

function assetIds(engine: Engine): RawBuilder<string> {
  const id = sql.ref('a.asset_id');
  return sql`(select ${jsonArray(engine, id, id)} from ${orderedRows(engine, 'scan_asset', 'a', 'asset_id')})`;
}

/** `,"public_templates":…` through `"template_urls":…`, the fields from the scan's templates (one read of them). */
function templateLists(engine: Engine): RawBuilder<string> {
  const id = sql.ref('t.template_id');
  const order = sql.ref('t.position');
  return sql`(select ',"public_templates":' || ${jsonArray(engine, id, order, sql`t.is_public = 1`)}
    || ',"report_config_ids":[],"rescan_count":' || s.rescan_count
    || ',"scan_config_ids":[],"template_ids":' || ${jsonArray(engine, id, order)}
    || ',"template_urls":' || ${jsonArray(engine, sql.ref('t.template_url'), order, sql`t.template_url <> ''`)}
    from ${orderedRows(engine, 'scan_template', 't', 'position')})`;
}

/**
 * `formatGoDuration` of the API's elapsed time: a duration of a second or more rounded to whole
 * seconds (`1h2m3s`, `2m0s`, `45s`), below a second its milliseconds (`350ms`), `0s` for none
 * (or a negative one, a clock that went back).
 */
function goDuration(engine: Engine, ms: RawBuilder<number>): RawBuilder<string> {
  // Math.round of the seconds, halves up, as integer division of whole milliseconds.
  const total =
    engine === 'postgres' ? sql`((${ms} + 500) / 1000)` : sql`((cast(${ms} as integer) + 500) / 1000)`;
  const text = (n: RawBuilder<unknown>) =>
    engine === 'postgres' ? sql`(${n})::text` : sql`cast(${n} as text)`;
  const h = sql`(${total} / 3600)`;
  const m = sql`((${total} % 3600) / 60)`;
  const s = sql`(${total} % 60)`;
  return sql`case
    when ${ms} <= 0 then '0s'
    when ${ms} < 1000 then ${text(sql`floor(${ms})`)} || 'ms'
    when ${h} > 0 then ${text(h)} || 'h' || ${text(m)} || 'm' || ${text(s)} || 's'
    when ${m} > 0 then ${text(m)} || 'm' || ${text(s)} || 's'
    else ${text(s)} || 's' end`;
}
