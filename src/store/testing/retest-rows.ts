import { type Kysely, sql } from 'kysely';
import { BUCKET_MS } from '../buckets.js';
import { newId } from '../id.js';
import type { Database } from '../schema.js';
import { chunks } from '../tx.js';

/**
 * Retest results of one finding recorded at `times` (epoch ms), written as rows directly (a
 * recorded result per row would take minutes), then the team's counts per day
 * (`retest_bucket`) made from them, as recording would have kept them.
 */
export async function insertRetests(
  db: Kysely<Database>,
  of: {
    readonly team: string;
    readonly scanId: string;
    readonly findingId: string;
    readonly target?: string;
  },
  times: readonly number[],
  columns: { readonly served_events?: string } = {},
): Promise<void> {
  for (const part of chunks(times, 500)) {
    await db
      .insertInto('retest')
      .values(
        part.map((at) => ({
          id: newId(),
          team_id: of.team,
          finding_id: of.findingId,
          scan_id: of.scanId,
          target: of.target ?? 'a.test',
          template_id: 't',
          template_path: '',
          template_url: '',
          template_hash: null,
          matcher_status: 1 as const,
          result_type: 'matched',
          vuln_status: 'open',
          events: '[]',
          ...columns,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
  }
  // A literal: SQLite would divide by a bound number as a real.
  const day = sql.lit(BUCKET_MS);
  await sql`delete from retest_bucket where team_id = ${of.team}`.execute(db);
  await sql`insert into retest_bucket (team_id, bucket, n)
    select team_id, (created_at / ${day}) * ${day}, count(*) from retest where team_id = ${of.team}
    group by 1, 2`.execute(db);
}

/** The ids of the team's retest results at `offset`, as a plain `OFFSET` reads them (newest first). */
export async function plainRetestPage(
  db: Kysely<Database>,
  team: string,
  offset: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('retest')
    .select('id')
    .where('team_id', '=', team)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => row.id);
}
