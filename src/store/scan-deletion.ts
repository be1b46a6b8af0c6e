import type { Kysely } from 'kysely';
import { bucketOf, uncountRows } from './buckets.js';
import type { Connection } from './connect.js';
import { StoreRequestError } from './errors.js';
import type { Database } from './schema.js';
import { writeTransaction } from './tx.js';

/** A scan still being written to: deleting it would race its scanner, worker or upload. */
const LIVE = new Set(['queued', 'starting', 'running']);

/**
 * Deletes one of the team's scans with everything recorded for it (findings, their retests and
 * triage history, targets, templates, chunks, authentication figures), in one transaction, and
 * keeps the listing counts right. Rescans of it stay, no longer linked to it. Refuses an unknown
 * scan or another team's (`not_found`) and a live one (`conflict`).
 */
export async function deleteScan(conn: Connection, scanId: string, teamId: string): Promise<void> {
  await writeTransaction(conn, async (db) => {
    const query = db
      .selectFrom('scan')
      .select(['status', 'created_at'])
      .where('id', '=', scanId)
      .where('team_id', '=', teamId);
    const scan = await (conn.engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    if (scan === undefined)
      throw new StoreRequestError(`no scan of this team has the id ${scanId}`, 'not_found');
    if (LIVE.has(scan.status)) {
      throw new StoreRequestError(
        `scan ${scanId} is ${scan.status}; a scan can be deleted once it has finished, failed or been uploaded`,
        'conflict',
      );
    }
    await deleteFindings(db, scanId, teamId);
    for (const table of [
      'scan_target',
      'scan_template',
      'scan_asset',
      'scan_chunk',
      'scan_auth',
      'scan_run_done',
    ] as const) {
      await db.deleteFrom(table).where('scan_id', '=', scanId).execute();
    }
    await db.updateTable('scan').set({ rescan_of: null }).where('rescan_of', '=', scanId).execute();
    await db.deleteFrom('scan').where('id', '=', scanId).execute();
    await uncountRows(db, 'scan_bucket', teamId, Number(scan.created_at), 1);
  });
}

async function deleteFindings(db: Kysely<Database>, scanId: string, teamId: string): Promise<void> {
  const ofScan = db.selectFrom('finding').select('id').where('scan_id', '=', scanId);
  const retests = await db
    .selectFrom('retest')
    .select('created_at')
    .where('finding_id', 'in', ofScan)
    .execute();
  const perDay = new Map<number, number>();
  for (const { created_at } of retests) {
    const day = bucketOf(Number(created_at));
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  for (const [at, n] of perDay) await uncountRows(db, 'retest_bucket', teamId, at, n);
  await db.deleteFrom('retest').where('finding_id', 'in', ofScan).execute();
  await db.deleteFrom('retest_request').where('finding_id', 'in', ofScan).execute();
  await db.deleteFrom('finding_status_change').where('finding_id', 'in', ofScan).execute();
  await db.deleteFrom('finding').where('scan_id', '=', scanId).execute();
}
