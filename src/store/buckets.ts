import { type Kysely, type QueryCreator, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { KeptCounts } from './kept-counts.js';
import type { Engine } from './location.js';
import { POSITION_STRIDE, resumeAt } from './positions.js';
import type { Database } from './schema.js';
import { unplanned } from './unplanned.js';

/** A day: a year of activity is 365 rows per team to sum, and a deep page skips within one day. */
export const BUCKET_MS = 86_400_000;

/**
 * 32 days: on SQLite the day counts are also kept summed over spans of this length (migration
 * 0020), so a deep page finds its span first, then its day within it.
 */
export const SPAN_MS = 32 * BUCKET_MS;

/** Offsets below this are found by the index alone; deeper ones through the daily counts. */
export const DEEP_OFFSET = 2_000;

type BucketTableName = 'scan_bucket' | 'retest_bucket';

export function bucketOf(createdAt: number): number {
  return Math.floor(createdAt / BUCKET_MS) * BUCKET_MS;
}

/** Counts one more row of `teamId` created at `createdAt` (in the row's own transaction). */
export async function countRow(
  db: Kysely<Database>,
  table: BucketTableName,
  teamId: string,
  createdAt: number,
) {
  await db
    .insertInto(table)
    .values({ team_id: teamId, bucket: bucketOf(createdAt), n: 1 })
    .onConflict((oc) =>
      oc.columns(['team_id', 'bucket']).doUpdateSet((eb) => ({ n: eb(`${table}.n`, '+', 1) })),
    )
    .execute();
}

/** Counts `n` fewer rows of `teamId` created at `createdAt`: they were deleted (in the same transaction). */
export async function uncountRows(
  db: Kysely<Database>,
  table: BucketTableName,
  teamId: string,
  createdAt: number,
  n: number,
) {
  await db
    .updateTable(table)
    .set((eb) => ({ n: eb(`${table}.n`, '-', n) }))
    .where('team_id', '=', teamId)
    .where('bucket', '=', bucketOf(createdAt))
    .execute();
}

/**
 * Where the row at a deep offset lies (see {@link locate}): numbers, or on PostgreSQL
 * expressions of the page's own query.
 */
export interface Place {
  /** The end of its day (exclusive): rows created at or after it are newer than the page. */
  readonly before: number | RawBuilder<number>;
  /** How many rows of that day and older to skip. */
  readonly skip: number | RawBuilder<number>;
  /**
   * PostgreSQL: the query of the common table `place` that `before` and `skip` read, which the
   * page's query must define (see {@link withPlace}).
   */
  readonly table?: RawBuilder<Located>;
  /**
   * PostgreSQL, from the day's kept positions (see positions.ts): the page starts past this row
   * (`(created_at, id) < after`), and `skip` counts from it rather than from the day's end.
   */
  readonly after?: RowKey;
}

/** A row of a listing by creation, as its index orders it. */
export interface RowKey {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * `db` to select a page from, defining the common table `place` when `place` reads one: its
 * day is found once, where two subqueries would each sum a year of days again.
 */
export function withPlace(db: Kysely<Database>, place: Place | undefined): QueryCreator<Database> {
  const table = place?.table;
  if (table === undefined) return db;
  // The table is read only by `before` and `skip`, raw expressions: the builder's type need not name it.
  // Kysely writes a raw table's query as it is: the parentheses are the statement's.
  return db.with('place', () => sql`(${table})`) as unknown as QueryCreator<Database>;
}

/**
 * Where the row at `offset` (newest first) lies, from the counts per day in a bucket table, or
 * for the scans whose status is one of `statuses` in `scan_status_bucket` (kept by triggers,
 * migration 0008); undefined when the team has no more rows than `offset`. Rows created after
 * that day cannot shift the answer, so it stays exact while new rows arrive.
 *
 * Each engine the cheaper way. PostgreSQL: from the team's day counts kept in this process while
 * no change is heard (`conn.kept`, read once per change rather than once per page: PostgreSQL's
 * CPU a page of retest results 0.71–0.84 → 0.60–0.63 ms, measured), and when the page skips a
 * stride or more of its day, from the day's kept positions too (see positions.ts, `after`); while
 * changes are not heard,
 * expressions of the page's own query reading the common table `place` it defines (a deep page
 * is one round trip; a query costs the server more to send than the sum over a year of days costs
 * PostgreSQL), with NULL for `before`, which no row passes, past the last row. SQLite: queries
 * of their own giving the day and the rows newer than it, so the page's query, which the window
 * would be evaluated in once per bound, stays simple; the span of 32 days first, from the sums
 * migration 0020 keeps, then the day within it.
 */
export async function locate(
  conn: {
    readonly engine: Engine;
    readonly db: Kysely<Database>;
    readonly kept?: KeptCounts | undefined;
    readonly positions?: KeptCounts | undefined;
  },
  teamId: string,
  offset: number,
  from: BucketSource,
): Promise<Place | undefined> {
  if (conn.engine === 'postgres') {
    const key = `${JSON.stringify(from)} ${teamId}`;
    const tables = tablesRead(from);
    const kept = conn.kept?.read(key, tables, () => daysNewestFirst(conn.db, teamId, from));
    if (kept === undefined) return placedByItsOwnQuery(teamId, offset, from);
    const place = placeIn(await kept, offset);
    if (place === undefined || place.skip < POSITION_STRIDE) return place;
    const day = place.before - BUCKET_MS;
    const positions = conn.positions?.readWhenAskedAgain(`${key} ${day}`, tables, () =>
      dayPositions(conn.db, teamId, from, day),
    );
    const resumed = positions === undefined ? undefined : resumeAt(await positions, place.skip);
    return resumed === undefined ? place : { ...place, ...resumed };
  }
  // Queries of their own: on a read thread, a year of day counts would cross to the main thread
  // as 365 rows to clone and sum there, which cost more than SQLite's window. The span first (a
  // dozen rows a year), then the day within it (at most 32).
  // Their values kept from the planner (see `unplanned`): each reads one key range.
  const team = unplanned(teamId);
  const span = (await runningSum(spanCounts(team, from), offset).execute(conn.db)).rows[0];
  if (span === undefined) return undefined;
  const start = Number(span.bucket);
  const newer = Number(span.newer);
  const within = { from: unplanned(start), to: unplanned(start + SPAN_MS) };
  const day = (await runningSum(dayCounts(team, from, within), offset - newer).execute(conn.db)).rows[0];
  if (day !== undefined)
    return { before: Number(day.bucket) + BUCKET_MS, skip: offset - newer - Number(day.newer) };
  // Rows of the span were deleted between the two reads: every day, as one read.
  const anyDay = (await runningSum(dayCounts(team, from), offset).execute(conn.db)).rows[0];
  if (anyDay === undefined) return undefined;
  return { before: Number(anyDay.bucket) + BUCKET_MS, skip: offset - Number(anyDay.newer) };
}

/**
 * Rows older than `key` in the listing's order (`created_at desc, id desc`): one range of the
 * (team, created_at, id) index, which PostgreSQL seeks by the row comparison.
 */
export function pastRow(key: RowKey): RawBuilder<SqlBool> {
  return sql<SqlBool>`(created_at, id) < (${key.createdAt}, ${key.id})`;
}

/** What a listing's day counts are read from: a bucket table, or the scans of some statuses. */
type BucketSource = { table: BucketTableName } | { statuses: readonly string[] };

/**
 * The tables whose changes move what is read by `from`: the listing's own (its counts' tables
 * are written by its triggers, in the same statements).
 */
function tablesRead(from: BucketSource): readonly string[] {
  if ('statuses' in from) return ['scan'];
  return from.table === 'scan_bucket' ? ['scan', 'scan_bucket'] : ['retest', 'retest_bucket'];
}

/** PostgreSQL's place while changes are not heard: expressions of the page's own query (see {@link locate}). */
function placedByItsOwnQuery(teamId: string, offset: number, from: BucketSource): Place {
  return {
    before: sql<number>`(select bucket + ${BUCKET_MS} from place)`,
    skip: sql<number>`coalesce((select ${offset} - newer from place), 0)`,
    table: runningSum(dayCounts(teamId, from), offset),
  };
}

/**
 * The keys of the rows at every {@link POSITION_STRIDE}th position of a day of the listing, newest
 * first (see positions.ts): the day's index entries read once, numbered by a window.
 */
async function dayPositions(
  db: Kysely<Database>,
  teamId: string,
  from: BucketSource,
  day: number,
): Promise<readonly RowKey[]> {
  const table = 'table' in from && from.table === 'retest_bucket' ? 'retest' : 'scan';
  const statuses = 'statuses' in from ? sql` and status in (${sql.join(from.statuses)})` : sql``;
  const { rows } = await sql<{ created_at: number | string; id: string }>`select created_at, id from (
      select created_at, id, row_number() over (order by created_at desc, id desc) as position
      from ${sql.table(table)}
      where team_id = ${teamId} and created_at >= ${day} and created_at < ${day + BUCKET_MS}${statuses}
    ) numbered where position % ${POSITION_STRIDE} = 0 order by position`.execute(db);
  return rows.map((row) => ({ createdAt: Number(row.created_at), id: row.id }));
}

/** The day counts of a bucket table or of `statuses`, newest first, as numbers (kept, see {@link locate}). */
async function daysNewestFirst(
  db: Kysely<Database>,
  teamId: string,
  from: BucketSource,
): Promise<readonly { bucket: number; n: number }[]> {
  const { rows } = await sql<DayCount>`${dayCounts(teamId, from)} order by bucket desc`.execute(db);
  return rows.map((row) => ({ bucket: Number(row.bucket), n: Number(row.n) }));
}

/** {@link locate}'s answer from the day counts, newest first: the running sum, taken here. */
function placeIn(
  days: readonly { bucket: number; n: number }[],
  offset: number,
): { before: number; skip: number } | undefined {
  let newer = 0;
  for (const { bucket, n } of days) {
    if (newer + n > offset) return { before: bucket + BUCKET_MS, skip: offset - newer };
    newer += n;
  }
  return undefined;
}

/** The day counts of a bucket table, or summed over `statuses`; with `within`, of those days only. */
function dayCounts(
  teamId: string | RawBuilder<string>,
  from: BucketSource,
  within?: { from: number | RawBuilder<number>; to: number | RawBuilder<number> },
): RawBuilder<DayCount> {
  const days = within === undefined ? sql`` : sql` and bucket >= ${within.from} and bucket < ${within.to}`;
  return 'table' in from
    ? sql<DayCount>`select bucket, n from ${sql.table(from.table)} where team_id = ${teamId}${days}`
    : sql<DayCount>`select bucket, sum(n) as n from scan_status_bucket
        where team_id = ${teamId} and status in (${sql.join(from.statuses)})${days} group by bucket`;
}

/** The span counts (SQLite, migration 0020) of a bucket table, or summed over `statuses`, as buckets. */
function spanCounts(teamId: string | RawBuilder<string>, from: BucketSource): RawBuilder<DayCount> {
  return 'table' in from
    ? sql<DayCount>`select span as bucket, n from ${sql.table(`${from.table}_span`)} where team_id = ${teamId}`
    : sql<DayCount>`select span as bucket, sum(n) as n from scan_status_bucket_span
        where team_id = ${teamId} and status in (${sql.join(from.statuses)}) group by span`;
}

/** The newest bucket whose running count (newest first) passes `offset`, and how many rows are newer than it. */
function runningSum(counts: RawBuilder<DayCount>, offset: number): RawBuilder<Located> {
  return sql<Located>`select bucket, total - n as newer from (
      select bucket, n, sum(n) over (order by bucket desc rows unbounded preceding) as total
      from (${counts}) days
    ) counted where total > ${offset} order by bucket desc limit 1`;
}

interface Located {
  readonly bucket: number | string;
  readonly newer: number | string;
}

interface DayCount {
  readonly bucket: number | string;
  readonly n: number | string;
}
