import { type Kysely, sql } from 'kysely';
import type { Connection } from './connect.js';
import { StoreRequestError } from './errors.js';
import { newId } from './id.js';
import type { Database, RetestRequestTable } from './schema.js';
import { writeTransaction } from './tx.js';

export const RETEST_REQUEST_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type RetestRequestState = (typeof RETEST_REQUEST_STATES)[number];

/** A retest asked for through the API, and how far it got. */
export interface RetestRequest {
  readonly id: string;
  readonly teamId: string;
  readonly vulnId: string;
  readonly requestedBy: string;
  readonly needsSecrets: boolean;
  readonly state: RetestRequestState;
  readonly runner: string | undefined;
  /** The retest result it recorded (see `GET /v1/retest`), once done. */
  readonly retestId: string | undefined;
  readonly error: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface RetestRequestInput {
  readonly teamId: string;
  readonly vulnId: string;
  readonly requestedBy: string;
  /** The finding was found with a secret: only a runner with secret files may retest it. */
  readonly needsSecrets: boolean;
}

/** Which requests a runner may take. */
export interface RetestClaimScope {
  /** Without secret files a runner takes only findings found without a secret. */
  readonly hasSecrets: boolean;
  /** A request running longer than this without an end is taken again (its runner died). */
  readonly staleMs: number;
  /** Only this team's requests (a worker started with `--team`). */
  readonly teamId?: string | undefined;
}

/**
 * The queue of retests asked for through the API. The API adds to it; `keyhole serve` (SQLite) or
 * `keyhole worker` (PostgreSQL) takes the oldest waiting request, runs it and records its outcome.
 */
export class RetestRequests {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /** Queues a retest of one of the team's findings; another team's finding is `not_found`. */
  async add(input: RetestRequestInput): Promise<RetestRequest> {
    const finding = await this.db
      .selectFrom('finding')
      .select('id')
      .where('id', '=', input.vulnId)
      .where('team_id', '=', input.teamId)
      .executeTakeFirst();
    if (finding === undefined)
      throw new StoreRequestError(`no finding of this team has the vuln id ${input.vulnId}`, 'not_found');
    const now = Date.now();
    const row: RetestRequestTable = {
      id: newId(),
      team_id: input.teamId,
      finding_id: input.vulnId,
      requested_by: input.requestedBy,
      needs_secrets: input.needsSecrets ? 1 : 0,
      state: 'queued',
      runner: null,
      retest_id: null,
      error: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('retest_request').values(row).execute();
    return requestOf(row);
  }

  /** One of the team's requests. */
  async get(id: string, teamId: string): Promise<RetestRequest | undefined> {
    const row = await this.db
      .selectFrom('retest_request')
      .selectAll()
      .where('id', '=', id)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row === undefined ? undefined : requestOf(row);
  }

  /** The team's latest requests for a finding, newest first. */
  async ofFinding(vulnId: string, teamId: string, limit = 20): Promise<RetestRequest[]> {
    const rows = await this.db
      .selectFrom('retest_request')
      .selectAll()
      .where('finding_id', '=', vulnId)
      .where('team_id', '=', teamId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(requestOf);
  }

  /** Takes the oldest request `runner` may run (or one whose runner died), marking it running. */
  async claim(runner: string, scope: RetestClaimScope): Promise<RetestRequest | undefined> {
    const now = Date.now();
    return writeTransaction(this.conn, async (db) => {
      let next = db
        .selectFrom('retest_request')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('state', '=', 'queued'),
            eb.and([eb('state', '=', 'running'), eb('updated_at', '<', now - scope.staleMs)]),
          ]),
        )
        .orderBy('created_at')
        .orderBy('id')
        .limit(1);
      if (!scope.hasSecrets) next = next.where('needs_secrets', '=', 0);
      if (scope.teamId !== undefined) next = next.where('team_id', '=', scope.teamId);
      // Workers never wait on each other nor take the same request (SQLite's write lock does it there).
      const row = await (this.conn.engine === 'postgres'
        ? next.forUpdate().skipLocked()
        : next
      ).executeTakeFirst();
      if (row === undefined) return undefined;
      const taken = { ...row, state: 'running', runner, updated_at: now };
      await db
        .updateTable('retest_request')
        .set({ state: 'running', runner, updated_at: now })
        .where('id', '=', row.id)
        .execute();
      return requestOf(taken);
    });
  }

  /** Records how a request ended: the retest result it recorded, or why it could not run. */
  async finish(id: string, end: { retestId: string } | { error: string }): Promise<void> {
    await this.db
      .updateTable('retest_request')
      .set({
        state: 'retestId' in end ? 'done' : 'failed',
        retest_id: 'retestId' in end ? end.retestId : null,
        error: 'error' in end ? end.error : null,
        updated_at: Date.now(),
      })
      .where('id', '=', id)
      .execute();
  }

  /** Waiting requests (queued), for a status line. */
  async waiting(): Promise<number> {
    const row = await this.db
      .selectFrom('retest_request')
      .select(sql<number>`count(*)`.as('n'))
      .where('state', '=', 'queued')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function requestOf(row: RetestRequestTable): RetestRequest {
  return {
    id: row.id,
    teamId: row.team_id,
    vulnId: row.finding_id,
    requestedBy: row.requested_by,
    needsSecrets: Number(row.needs_secrets) === 1,
    state: row.state as RetestRequestState,
    runner: row.runner ?? undefined,
    retestId: row.retest_id ?? undefined,
    error: row.error ?? undefined,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
