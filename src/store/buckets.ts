import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from './location.js';
import type { Database } from './schema.js';

/** A day: a year of activity is 365 rows per team to sum, and a deep page skips within one day. */
export const BUCKET_MS = 86_400_000;

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
}

/**
 * Where the row at `offset` (newest first) lies, from the counts per day in a bucket table, or
 * for the scans whose status is one of `statuses` in `scan_status_bucket` (kept by triggers,
 * migration 0008); undefined when the team has no more rows than `offset`. Rows created after
 * that day cannot shift the answer, so it stays exact while new rows arrive.
 *
 * Each engine the cheaper way. PostgreSQL: expressions of the page's own query (a deep page is
 * one round trip; a query costs the server more to send than the sum over a year of days costs
 * PostgreSQL), with NULL for `before`, which no row passes, past the last row. SQLite: a query of
 * its own giving the day and the rows newer than it, so the page's query, which the window would
 * be evaluated in once per bound, stays simple.
 */
export async function locate(
  conn: { readonly engine: Engine; readonly db: Kysely<Database> },
  teamId: string,
  offset: number,
  from: { table: BucketTableName } | { statuses: readonly string[] },
): Promise<Place | undefined> {
  const days =
    'table' in from
      ? sql<DayCount>`select bucket, n from ${sql.table(from.table)} where team_id = ${teamId}`
      : sql<DayCount>`select bucket, sum(n) as n from scan_status_bucket
          where team_id = ${teamId} and status in (${sql.join(from.statuses)}) group by bucket`;
  // The day holding the row, and how many rows are newer than that day.
  const day = sql<Located>`select bucket, total - n as newer from (
      select bucket, n, sum(n) over (order by bucket desc rows unbounded preceding) as total
      from (${days}) days
    ) counted where total > ${offset} order by bucket desc limit 1`;
  if (conn.engine === 'postgres') {
    return {
      before: sql<number>`(select bucket + ${BUCKET_MS} from (${day}) place)`,
      skip: sql<number>`coalesce((select ${offset} - newer from (${day}) place), 0)`,
    };
  }
  // A query of its own: on a read thread, a year of day counts would cross to the main thread as
  // 365 rows to clone and sum there, which cost more than SQLite's window.
  const place = (await day.execute(conn.db)).rows[0];
  if (place === undefined) return undefined;
  return { before: Number(place.bucket) + BUCKET_MS, skip: offset - Number(place.newer) };
}

interface Located {
  readonly bucket: number | string;
  readonly newer: number | string;
}

interface DayCount {
  readonly bucket: number | string;
  readonly n: number | string;
}
