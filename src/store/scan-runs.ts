import type { Connection } from './connect.js';
import { chunks, writeTransaction } from './tx.js';

/** A template run of a scan: the template's id and the target's position (-1: self-contained). */
export interface RunKey {
  readonly templateId: string;
  readonly target: number;
}

/** The template runs of each scan that finished, for `-resume` (migration 0006). */
export class ScanRuns {
  constructor(private readonly conn: Connection) {}

  /** Records runs as finished, in one transaction; a run recorded already is left as it is. */
  async addDone(scanId: string, runs: readonly RunKey[]): Promise<void> {
    if (runs.length === 0) return;
    await writeTransaction(this.conn, async (db) => {
      for (const part of chunks(runs, 300)) {
        await db
          .insertInto('scan_run_done')
          .values(part.map((r) => ({ scan_id: scanId, template_id: r.templateId, target: r.target })))
          .onConflict((oc) => oc.columns(['scan_id', 'template_id', 'target']).doNothing())
          .execute();
      }
    });
  }

  /** The runs of the scan that finished. */
  async done(scanId: string): Promise<RunKey[]> {
    const rows = await this.conn.db
      .selectFrom('scan_run_done')
      .select(['template_id', 'target'])
      .where('scan_id', '=', scanId)
      .execute();
    return rows.map((r) => ({ templateId: r.template_id, target: Number(r.target) }));
  }
}
