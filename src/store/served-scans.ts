import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { SEVERITY_RANK } from './browse.js';
import type { Database, ScanTable } from './schema.js';
import { compiledOnce, formatted, jsonFlag, jsonString, jsonTimestamp } from './served-sql.js';
import { type EpochMs, formatElapsed, formatTimestamp } from './time.js';

/**
 * A scan as the API lists it (`/v1/scans`), written by SQLite as JSON text: the fields of
 * docs/store-and-api.md's scan record, in its order, with the values `Scan` and the API's
 * rendering give (timestamps in RFC 3339 with milliseconds, or "" when not set; the elapsed time
 * as a Go duration, whole seconds from a second up; 0/1 flags as booleans; the template and
 * asset lists as kept on its row, see scan-lists.ts).
 *
 * {@link servedScanText} writes the same text from a scan's row, for PostgreSQL's pages.
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
  const severity = SEVERITY_RANK.flatMap((name, i) => [
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

/** The texts of a scan {@link servedScanText} writes it from, read as columns. */
const SERVED_SCAN_TEXTS = [
  'id',
  'status',
  'name',
  'failure_reason',
  'scan_frequency',
  'listed_asset_ids',
  'listed_public_templates',
  'listed_template_ids',
  'listed_template_urls',
] as const satisfies readonly (keyof ScanTable)[];

/**
 * The integers of a scan {@link servedScanText} writes it from, in this order, read as one text
 * of them joined by commas (see {@link servedScanColumns}).
 */
const SERVED_SCAN_INTEGERS = [
  'elapsed_ms',
  'started_at',
  'progress',
  'created_at',
  'updated_at',
  'total_target',
  'completed_at',
  'total_scan',
  'total_template',
  ...SEVERITY_RANK.map((name) => `severity_${name}` as const),
  'is_oss',
  'is_cloud',
  'schedule_last_run',
  'is_rescan',
  'rescan_count',
] as const satisfies readonly (keyof ScanTable)[];

/** Where each integer is in the text of a scan's integers. */
const AT = Object.fromEntries(SERVED_SCAN_INTEGERS.map((column, i) => [column, i])) as Record<
  (typeof SERVED_SCAN_INTEGERS)[number],
  number
>;

/**
 * A scan as a page reads it on PostgreSQL when it has no kept text: its texts, and its integers
 * as one text (see {@link servedScanColumns}).
 */
export type ServedScanRow = Pick<Selectable<ScanTable>, (typeof SERVED_SCAN_TEXTS)[number]> & {
  readonly integers: string;
};

/**
 * A scan as a page reads it on PostgreSQL: its status, and the text it is served as, kept with it
 * (migration 0029) or, when it has none, the columns {@link servedScanText} writes it from (each
 * null for a scan that has its text).
 */
export type ServedScanSource =
  | { readonly served: string; readonly status: string }
  | ({ readonly served: null } & ServedScanRow);

/**
 * What a page of scans selects on PostgreSQL (see {@link ServedScanSource}). A scan's kept text
 * (`served`) is one column to decode and splice; a scan without one (a timestamp outside
 * 1970–9999, a list kept with spaces, any scan on a server before PostgreSQL 12) is read as its
 * nine texts and its 21 integers as one text, joined by commas (PostgreSQL writes an integer's
 * text in any case; a null is written as nothing). Sent as 30 columns, a page of 50 scans cost node-postgres 392–437 µs of the API's CPU
 * to decode into strings and objects, as 10 columns 251–260 µs, and PostgreSQL about the same
 * (measured, BENCHMARKS.md): each column is a string to decode and a member to set, and the
 * integers' texts need nothing but splitting. An integer's text holds no comma.
 */
export function servedScanColumns(db: Kysely<Database>) {
  return [sql<string | null>`served`.as('served'), ...scanTextColumns(db, 'when unserved')] as const;
}

/**
 * The columns {@link servedScanText} writes a scan from (a {@link ServedScanRow}): always, or
 * only for a scan without its kept text (the others selected as null, but its status).
 */
export function scanTextColumns(db: Kysely<Database>, when: 'always' | 'when unserved') {
  // Compiled once: built and compiled for every page, the 21 expressions cost Kysely about 20 µs
  // of a page's 30 (measured).
  const column = (name: string, value: () => RawBuilder<unknown>) =>
    compiledOnce(db, `scan ${name} ${when}`, () =>
      when === 'always' ? sql<string>`${value()}` : sql<string>`case when served is null then ${value()} end`,
    );
  const integers = column('integers', () => {
    const each = SERVED_SCAN_INTEGERS.map((name) => sql`coalesce(${sql.ref(name)}::text, '')`);
    return sql`concat_ws(',', ${sql.join(each)})`;
  });
  const texts = SERVED_SCAN_TEXTS.filter((name) => name !== 'status').map((name) =>
    column(name, () => sql.ref(name)).as(name),
  );
  return ['status', ...texts, integers.as('integers')] as const;
}

/**
 * Where a running scan's kept text holds the time it started, between two of these, in place of
 * its elapsed time (migration 0029): a control character, which JSON texts hold only escaped.
 */
const SCAN_CLOCK_MARK = '\u0001';

/**
 * A scan's text on a page of PostgreSQL's: as kept (a running scan's elapsed time as of `now`),
 * or written from its columns.
 */
export function servedScanOf(source: ServedScanSource, now: EpochMs): string {
  const served = source.served;
  if (served === null) return servedScanText(source, now);
  if (source.status !== 'running') return served;
  const from = served.indexOf(SCAN_CLOCK_MARK);
  if (from < 0) return served;
  const to = served.indexOf(SCAN_CLOCK_MARK, from + 1);
  const startedAt = Number(served.slice(from + 1, to));
  const elapsed = scanElapsedMs({ elapsed_ms: null, status: 'running', started_at: startedAt }, now);
  return `${served.slice(0, from)}${formatElapsed(elapsed)}${served.slice(to + 1)}`;
}

/**
 * {@link servedScanJson}'s text written from a scan's row by the API's process: how PostgreSQL's
 * pages are served (see served-sql.ts for why not by PostgreSQL). The same members, order and
 * values, so both engines serve a scan alike. Written as one text rather than a scan and an item
 * for the API's serialiser: the lists are spliced as they are kept instead of being parsed into
 * arrays, copied and written again (with `formatTimestamp`'s arithmetic, the API's CPU per page
 * of scans about 15 % less, measured), and the integers as PostgreSQL wrote them (an integer's
 * text is its JSON).
 */
export function servedScanText(row: ServedScanRow, now: EpochMs): string {
  const integer = row.integers.split(',');
  const text = (column: (typeof SERVED_SCAN_INTEGERS)[number]) => integer[AT[column]] ?? '';
  const value = (column: (typeof SERVED_SCAN_INTEGERS)[number]) => {
    const written = text(column);
    return written === '' ? null : Number(written);
  };
  const time = (column: (typeof SERVED_SCAN_INTEGERS)[number]) => formatTimestamp(value(column));
  let severity = '';
  for (const name of SEVERITY_RANK)
    severity += `${severity === '' ? '' : ','}"${name}":${text(`severity_${name}`)}`;
  const elapsed = scanElapsedMs(
    { elapsed_ms: value('elapsed_ms'), status: row.status, started_at: value('started_at') },
    now,
  );
  return `{"scan_id":${JSON.stringify(row.id)},"status":${JSON.stringify(row.status)},"scan_time_elapsed":"${formatElapsed(elapsed)}","progress":${text('progress')},"failure_reason":${JSON.stringify(row.failure_reason)},"created_at":"${time('created_at')}","updated_at":"${time('updated_at')}","total_target":${text('total_target')},"completed_at":"${time('completed_at')}","total_scan":${text('total_scan')},"total_template":${text('total_template')},"name":${JSON.stringify(row.name)},"severity":{${severity}},"is_oss":${text('is_oss') === '1'},"is_cloud":${text('is_cloud') === '1'},"scan_frequency":${JSON.stringify(row.scan_frequency)},"schedule_last_run":"${time('schedule_last_run')}","asset_ids":${listed(row.listed_asset_ids)},"is_rescan":${text('is_rescan') === '1'},"public_templates":${listed(row.listed_public_templates)},"report_config_ids":[],"rescan_count":${text('rescan_count')},"scan_config_ids":[],"template_ids":${listed(row.listed_template_ids)},"template_urls":${listed(row.listed_template_urls)}}`;
}

/** A scan's elapsed time: as kept once it ended, or for a running scan the time since it started. */
export function scanElapsedMs(
  row: Pick<ScanTable, 'elapsed_ms' | 'status' | 'started_at'>,
  now: EpochMs,
): number {
  return row.elapsed_ms ?? (row.status === 'running' && row.started_at !== null ? now - row.started_at : 0);
}

/**
 * A kept list as `JSON.stringify` writes it. Lists that earlier versions kept on PostgreSQL have a
 * space after each comma (`json_agg`'s form): migration 0025 rewrote those, but a process of an
 * earlier version may still write one; it is written again here. A list without `, ` anywhere
 * has no such space and is spliced as it is.
 */
function listed(text: string): string {
  return text.includes(', ') ? JSON.stringify(JSON.parse(text)) : text;
}
