import type { Connection } from './connect.js';
import { StoreRequestError } from './errors.js';
import { newId } from './id.js';
import type { VulnStatus } from './model.js';
import type { EpochMs } from './time.js';
import { chunks, writeTransaction } from './tx.js';

/** One triage of a finding, as its history shows it. */
export interface StatusChange {
  readonly vulnId: string;
  readonly previousStatus: VulnStatus;
  readonly status: VulnStatus;
  readonly changedAt: EpochMs;
  /** `key:ID` for an API key, `cli` for `keyhole findings set-status`. */
  readonly changedBy: string;
}

/** The most ids one triage takes: a page of findings. */
export const MAX_TRIAGE_IDS = 1000;

/** Setting findings' status by hand, and the history of it. */
export class Triage {
  constructor(private readonly conn: Connection) {}

  /**
   * Sets the status of the team's findings, all or nothing: when one id is not a finding of the
   * team, nothing changes ({@link StoreRequestError} `not_found`, naming the ids). A finding
   * already at that status is left as it is; each one changed gets a row in its history.
   */
  async setStatus(
    teamId: string,
    vulnIds: readonly string[],
    status: VulnStatus,
    changedBy: string,
  ): Promise<StatusChange[]> {
    const ids = [...new Set(vulnIds)];
    return writeTransaction(this.conn, async (db) => {
      const found = new Map<string, VulnStatus>();
      for (const part of chunks(ids, 500)) {
        const rows = await db
          .selectFrom('finding')
          .select(['id', 'vuln_status'])
          .where('team_id', '=', teamId)
          .where('id', 'in', part)
          .execute();
        for (const row of rows) found.set(row.id, row.vuln_status as VulnStatus);
      }
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        const shown =
          missing.slice(0, 10).join(', ') + (missing.length > 10 ? ` and ${missing.length - 10} more` : '');
        throw new StoreRequestError(
          `no finding of this team has the vuln id ${shown}; nothing changed`,
          'not_found',
        );
      }
      const now = Date.now();
      const changes = ids
        .filter((id) => found.get(id) !== status)
        .map((id) => ({
          vulnId: id,
          previousStatus: found.get(id) as VulnStatus,
          status,
          changedAt: now,
          changedBy,
        }));
      for (const part of chunks(changes, 500)) {
        await db
          .updateTable('finding')
          .set({ vuln_status: status, updated_at: now })
          .where(
            'id',
            'in',
            part.map((c) => c.vulnId),
          )
          .execute();
        await db
          .insertInto('finding_status_change')
          .values(
            part.map((c) => ({
              id: newId(),
              finding_id: c.vulnId,
              previous_status: c.previousStatus,
              vuln_status: c.status,
              changed_at: c.changedAt,
              changed_by: c.changedBy,
            })),
          )
          .execute();
      }
      return changes;
    });
  }

  /** The triage history of one of the team's findings, oldest first; undefined when the team has no such finding. */
  async history(vulnId: string, teamId: string): Promise<StatusChange[] | undefined> {
    const finding = await this.conn.db
      .selectFrom('finding')
      .select('id')
      .where('id', '=', vulnId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    if (finding === undefined) return undefined;
    const rows = await this.conn.db
      .selectFrom('finding_status_change')
      .selectAll()
      .where('finding_id', '=', vulnId)
      .orderBy('changed_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      vulnId: row.finding_id,
      previousStatus: row.previous_status as VulnStatus,
      status: row.vuln_status as VulnStatus,
      changedAt: Number(row.changed_at),
      changedBy: row.changed_by,
    }));
  }
}
