import { type Kysely, sql } from 'kysely';
import { BUCKET_MS } from '../buckets.js';
import { newId } from '../id.js';
import type { ScanStatus } from '../model.js';
import type { Database } from '../schema.js';
import { chunks } from '../tx.js';

/**
 * Scans of `team` written as rows directly (named, with a status and a creation time; every other
 * column its default), then the team's counts per day (`scan_bucket`) made from all its scans, as
 * creating them through the store would have kept them.
 */
export async function insertScans(
  db: Kysely<Database>,
  team: string,
  scans: readonly { readonly name: string; readonly status: ScanStatus; readonly createdAt: number }[],
): Promise<void> {
  for (const part of chunks(scans, 1_000)) {
    const values = part.map((scan) => ({
      id: newId(),
      team_id: team,
      name: scan.name,
      name_folded: scan.name.toLowerCase(),
      status: scan.status,
      created_at: scan.createdAt,
      updated_at: scan.createdAt,
    }));
    // The other columns have their defaults.
    await db
      .insertInto('scan')
      .values(values as never)
      .execute();
  }
  // A literal: SQLite would divide by a bound number as a real.
  const day = sql.lit(BUCKET_MS);
  await sql`delete from scan_bucket where team_id = ${team}`.execute(db);
  await sql`insert into scan_bucket (team_id, bucket, n)
    select team_id, (created_at / ${day}) * ${day}, count(*) from scan where team_id = ${team}
    group by 1, 2`.execute(db);
}

/**
 * The ids of the team's scans at `offset` (of `statuses`, or all), as a plain `OFFSET` reads them
 * (newest first).
 */
export async function plainScanPage(
  db: Kysely<Database>,
  team: string,
  page: { readonly statuses?: readonly ScanStatus[]; readonly offset: number; readonly limit: number },
): Promise<string[]> {
  let query = db.selectFrom('scan').select('id').where('team_id', '=', team);
  if ((page.statuses ?? []).length > 0) query = query.where('status', 'in', page.statuses ?? []);
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((row) => row.id);
}
