import { type RawBuilder, sql } from 'kysely';
import { SEVERITIES } from '../event/index.js';
import { formatted, jsonFlag, jsonString, jsonTimestamp } from './served-sql.js';

/**
 * A scan as the API lists it (`/v1/scans`), written by SQLite as JSON text: the fields of
 * docs/store-and-api.md's scan record, in its order, with the values `Scan` and the API's
 * rendering give (timestamps in RFC 3339 with milliseconds, or "" when not set; the elapsed time
 * as a Go duration, whole seconds from a second up; 0/1 flags as booleans; the template and
 * asset lists from their tables).
 *
 * A page of scans is then one text SQLite builds in C, instead of a row of 25 columns per scan
 * that the read thread clones to the main thread, made into objects and serialised again (see
 * served-sql.ts, and why not on PostgreSQL). The expression reads the scan as `s`, and the
 * request's time (which gives a running scan its elapsed time) as `clock.now`; it has no
 * parameters, so it is compiled once (see `compiledOnce`).
 */
export function servedScanJson(): RawBuilder<string> {
  const q = (column: string) => jsonString(sql.ref(`s.${column}`));
  const int = (column: string) => sql.ref(`s.${column}`);
  const bool = (column: string) => jsonFlag(sql.ref(`s.${column}`));
  const severity = SEVERITIES.flatMap((name, i) => [
    `${i === 0 ? '{' : ','}"${name}":`,
    int(`severity_${name}`),
  ]);
  const elapsed = sql<number>`coalesce(s.elapsed_ms, case when s.status = 'running' and s.started_at is not null then clock.now - s.started_at else 0 end)`;
  return formatted([
    '{"scan_id":',
    q('id'),
    ',"status":',
    q('status'),
    ',"scan_time_elapsed":"',
    goDuration(elapsed),
    '","progress":',
    int('progress'),
    ',"failure_reason":',
    q('failure_reason'),
    ',"created_at":',
    jsonTimestamp(int('created_at')),
    ',"updated_at":',
    jsonTimestamp(int('updated_at')),
    ',"total_target":',
    int('total_target'),
    ',"completed_at":',
    jsonTimestamp(int('completed_at')),
    ',"total_scan":',
    int('total_scan'),
    ',"total_template":',
    int('total_template'),
    ',"name":',
    q('name'),
    ',"severity":',
    ...severity,
    '},"is_oss":',
    bool('is_oss'),
    ',"is_cloud":',
    bool('is_cloud'),
    ',"scan_frequency":',
    q('scan_frequency'),
    ',"schedule_last_run":',
    jsonTimestamp(int('schedule_last_run')),
    ',"asset_ids":',
    assetIds(),
    ',"is_rescan":',
    bool('is_rescan'),
    templateLists(),
    '}',
  ]);
}

/**
 * A JSON array of `value` over the rows read, optionally only those `where` holds. The rows come
 * ordered from the subquery they are read from (see {@link orderedRows}), and the aggregates take
 * them in that order: an ordered aggregate would sort each scan's few rows again, once per array,
 * in a temporary B-tree of its own (most of a page's time, measured).
 */
function jsonArray(value: RawBuilder<unknown>, where?: RawBuilder<unknown>) {
  const filter = where === undefined ? sql`` : sql` filter (where ${where})`;
  return sql`coalesce(json_group_array(${value})${filter}, '[]')`;
}

/**
 * The rows of `table` (as `alias`) that belong to the scan `s`, read in `order` by a subquery
 * that SQLite does not merge into the aggregate query reading it (it does not flatten a subquery
 * with ORDER BY into an aggregate), so its aggregates see the rows in that order.
 */
function orderedRows(table: string, alias: string, order: string): RawBuilder<unknown> {
  return sql`(select * from ${sql.table(table)} ${sql.raw(alias)} where ${sql.ref(`${alias}.scan_id`)} = s.id
    order by ${sql.ref(`${alias}.${order}`)}) ${sql.raw(alias)}`;
}

function assetIds(): RawBuilder<string> {
  const id = sql.ref('a.asset_id');
  return sql`(select ${jsonArray(id)} from ${orderedRows('scan_asset', 'a', 'asset_id')})`;
}

/** `,"public_templates":…` through `"template_urls":…`, the fields from the scan's templates (one read of them). */
function templateLists(): RawBuilder<string> {
  const id = sql.ref('t.template_id');
  const lists = formatted([
    ',"public_templates":',
    jsonArray(id, sql`t.is_public = 1`),
    ',"report_config_ids":[],"rescan_count":',
    sql.ref('s.rescan_count'),
    ',"scan_config_ids":[],"template_ids":',
    jsonArray(id),
    ',"template_urls":',
    jsonArray(sql.ref('t.template_url'), sql`t.template_url <> ''`),
  ]);
  return sql`(select ${lists} from ${orderedRows('scan_template', 't', 'position')})`;
}

/**
 * `formatGoDuration` of the API's elapsed time: a duration of a second or more rounded to whole
 * seconds (`1h2m3s`, `2m0s`, `45s`), below a second its milliseconds (`350ms`), `0s` for none
 * (or a negative one, a clock that went back).
 */
function goDuration(ms: RawBuilder<number>): RawBuilder<string> {
  // Math.round of the seconds, halves up, as integer division of whole milliseconds.
  const total = sql`((cast(${ms} as integer) + 500) / 1000)`;
  const h = sql`(${total} / 3600)`;
  const m = sql`((${total} % 3600) / 60)`;
  const s = sql`(${total} % 60)`;
  return sql`case
    when ${ms} <= 0 then '0s'
    when ${ms} < 1000 then format('%dms', ${ms})
    when ${h} > 0 then format('%dh%dm%ds', ${h}, ${m}, ${s})
    when ${m} > 0 then format('%dm%ds', ${m}, ${s})
    else format('%ds', ${s}) end`;
}
