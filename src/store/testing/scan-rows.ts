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

/**
 * `count` scans of `team` a second apart, a hundred a day from `start`, with ids in creation
 * order (`scan-00042`): every name holds "sweep", a hundredth of them "Needle" (a third of those
 * failed), and the 4,322nd "lonely". For the searches of names kept from their second ask.
 */
export async function insertNeedleScans(
  db: Kysely<Database>,
  team: string,
  count: number,
  start: number,
): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => {
    const name = i === 4_321 ? `lonely sweep ${i}` : i % 100 === 42 ? `Needle sweep ${i}` : `sweep ${i}`;
    const at = start + Math.floor(i / 100) * 86_400_000 + (i % 100) * 1_000;
    return {
      id: `scan-${String(i).padStart(5, '0')}`,
      team_id: team,
      name,
      name_folded: name.toLowerCase(),
      status: i % 300 === 42 ? 'failed' : 'finished',
      created_at: at,
      updated_at: at,
    };
  });
  for (const part of chunks(rows, 1_000))
    await db
      .insertInto('scan')
      .values(part as never)
      .execute();
}

/** A page of 10 of the team's scans whose names hold `term` (any case), as a plain `LIKE` and `OFFSET` read it. */
export async function plainNameSearch(
  db: Kysely<Database>,
  team: string,
  term: string,
  offset: number,
  statuses?: readonly ScanStatus[],
): Promise<string[]> {
  let query = db
    .selectFrom('scan')
    .select('id')
    .where('team_id', '=', team)
    .where('name_folded', 'like', `%${term.toLowerCase()}%`);
  if (statuses !== undefined) query = query.where('status', 'in', statuses);
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(10)
    .offset(offset)
    .execute();
  return rows.map((row) => row.id);
}
