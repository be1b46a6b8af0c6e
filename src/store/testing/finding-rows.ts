import type { Kysely } from 'kysely';
import { Xid } from 'xid-ts';
import type { VulnStatus } from '../model.js';
import type { Database } from '../schema.js';
import { chunks } from '../tx.js';

const STATUSES: readonly VulnStatus[] = ['open', 'fixed', 'triaged'];

/**
 * `count` findings of `team`'s scan `scanId` written as rows directly, 90 s apart from `start`
 * (so their ids fall in id buckets of about 1,450 each), each id made at its instant as the store
 * makes them; even ones of high severity, odd ones low, their statuses open, fixed and triaged in
 * turn. The trigger-kept counts follow.
 */
export async function insertSpacedFindings(
  db: Kysely<Database>,
  found: { readonly team: string; readonly scanId: string },
  count: number,
  start: number,
): Promise<void> {
  for (const part of chunks(
    Array.from({ length: count }, (_, i) => i),
    1_000,
  )) {
    await db
      .insertInto('finding')
      .values(
        part.map((i) => ({
          id: Xid.newWithTime(start / 1000 + i * 90).toString(),
          team_id: found.team,
          scan_id: found.scanId,
          vuln_hash: `hash ${i}`,
          vuln_status: STATUSES[i % STATUSES.length]!,
          severity: i % 2 === 0 ? 'high' : 'low',
          template_id: 't',
          template_path: '',
          template_url: '',
          template_hash: null,
          target: 'a.test',
          event: '{}',
          created_at: start + i * 90_000,
          updated_at: start + i * 90_000,
        })),
      )
      .execute();
  }
}
