import { type RawBuilder, sql } from 'kysely';
import { SEVERITIES } from '../event/index.js';
import { formatted, jsonFlag, jsonString, jsonTimestamp } from './served-sql.js';

/**
 * A scan as the API lists it (`/v1/scans`), written by SQLite as JSON text: the fields of
 * docs/store-and-api.md's scan record, in its order, with the values `Scan` and the API's
 * rendering give (timestamps in RFC 3339 with milliseconds, or "" when not set; the elapsed time
 * as a Go duration, whole seconds from a second up; 0/1 flags as booleans; the template and
 * asset lists as kept on its row, see scan-lists.ts).
 *
 * A page of scans is then one text SQLite builds in C, instead of a row of 25 columns per scan
 * that the read thread clones to the main thread, made into objects and serialised again (see
 * served-sql.ts, and why not on PostgreSQL). The expression reads the scan as `s`, and the
 * request's time (which gives a running scan its elapsed time) as `clock.now`; it has no
 * parameters, so it is compiled once (see `compiledOnce`).
 */
export function servedScanJson(): RawBuilder<string> {
  const q = (column: string) => jsonString(sql.ref(`s.${column}`));
  // A column's value as it is: a number, or a JSON text kept so (the lists, see scan-lists.ts).
  const raw = (column: string) => sql.ref(`s.${column}`);
  const bool = (column: string) => jsonFlag(sql.ref(`s.${column}`));
  const severity = SEVERITIES.flatMap((name, i) => [
    `${i === 0 ? '{' : ','}"${name}":`,
    raw(`severity_${name}`),
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
    raw('progress'),
    ',"failure_reason":',
    q('failure_reason'),
    ',"created_at":',
    jsonTimestamp(raw('created_at')),
    ',"updated_at":',
    jsonTimestamp(raw('updated_at')),
    ',"total_target":',
    raw('total_target'),
    ',"completed_at":',
    jsonTimestamp(raw('completed_at')),
    ',"total_scan":',
    raw('total_scan'),
    ',"total_template":',
    raw('total_template'),
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
    jsonTimestamp(raw('schedule_last_run')),
    ',"asset_ids":',
    raw('listed_asset_ids'),
    ',"is_rescan":',
    bool('is_rescan'),
    ',"public_templates":',
    raw('listed_public_templates'),
    ',"report_config_ids":[],"rescan_count":',
    raw('rescan_count'),
    ',"scan_config_ids":[],"template_ids":',
    raw('listed_template_ids'),
    ',"template_urls":',
    raw('listed_template_urls'),
    '}',
  ]);
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
