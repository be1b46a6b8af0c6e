import { type Kysely, sql } from 'kysely';
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

/** Where the row at a deep offset lies: see {@link locate}. */
export interface Place {
  /** The end of its day (exclusive): rows created at or after it are newer than the page. */
  readonly before: number;
  /** How many rows of that day and older to skip. */
  readonly skip: number;
}

/**
 * Where the row at `offset` (newest first) lies, from the counts per day in a bucket table, or
 * for the scans whose status is one of `statuses` in `scan_status_bucket` (kept by triggers,
 * migration 0008); undefined when the team has no more rows than `offset`. Rows created after
 * that day cannot shift the answer, so it stays exact while new rows arrive.
 *
 * The running sum is taken here over the day counts, newest first (a year of activity is 365
 * small rows), rather than by a window function in the page's own query: SQL evaluated that sum
 * twice per page (once for each bound) and sorted for it, which cost more than the page itself.
 */
export async function locate(
  db: Kysely<Database>,
  teamId: string,
  offset: number,
  from: { table: BucketTableName } | { statuses: readonly string[] },
): Promise<Place | undefined> {
  const days =
    'table' in from
      ? await sql<{
          bucket: number | string;
          n: number | string;
        }>`select bucket, n from ${sql.table(from.table)}
          where team_id = ${teamId} order by bucket desc`.execute(db)
      : await sql<{ bucket: number | string; n: number | string }>`select bucket, sum(n) as n
          from scan_status_bucket where team_id = ${teamId} and status in (${sql.join(from.statuses)})
          group by bucket order by bucket desc`.execute(db);
  let newer = 0;
  for (const day of days.rows) {
    const n = Number(day.n);
    if (newer + n > offset) return { before: Number(day.bucket) + BUCKET_MS, skip: offset - newer };
    newer += n;
  }
  return undefined;
}
