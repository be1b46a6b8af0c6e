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

/**
 * Where the row at `offset` (newest first) lies: the end of its day (exclusive) and how many
 * rows of that day and older to skip, or undefined when the team has fewer rows. Rows created
 * after that day cannot shift the answer, so it stays exact while new rows arrive.
 */
export async function locate(
  db: Kysely<Database>,
  table: BucketTableName,
  teamId: string,
  offset: number,
): Promise<{ before: number; skip: number } | undefined> {
  const result = await sql<{ bucket: number; newer: number }>`
    select bucket, total - n as newer from (
      select bucket, n, sum(n) over (order by bucket desc rows unbounded preceding) as total
      from ${sql.table(table)} where team_id = ${teamId}
    ) counted where total > ${offset} order by bucket desc limit 1`.execute(db);
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return { before: Number(row.bucket) + BUCKET_MS, skip: offset - Number(row.newer) };
}

/**
 * {@link locate} for the scans whose status is one of `statuses`, through `scan_status_bucket`
 * (kept by triggers, see migration 0008).
 */
export async function locateByStatus(
  db: Kysely<Database>,
  teamId: string,
  statuses: readonly string[],
  offset: number,
): Promise<{ before: number; skip: number } | undefined> {
  const result = await sql<{ bucket: number; newer: number }>`
    select bucket, total - n as newer from (
      select bucket, n, sum(n) over (order by bucket desc rows unbounded preceding) as total from (
        select bucket, sum(n) as n from scan_status_bucket
        where team_id = ${teamId} and status in (${sql.join(statuses)}) group by bucket
      ) days
    ) counted where total > ${offset} order by bucket desc limit 1`.execute(db);
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return { before: Number(row.bucket) + BUCKET_MS, skip: offset - Number(row.newer) };
}
