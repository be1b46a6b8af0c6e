import { type Kysely, sql } from 'kysely';
import type { Connection } from './connect.js';
import { StoreRequestError } from './errors.js';
import type { Database, ScanChunkTable } from './schema.js';
import { writeTransaction } from './tx.js';

/** A chunk as a queued scan is created with: a run of its targets and the template runs it makes. */
export interface ChunkInput {
  readonly firstTarget: number;
  readonly targetCount: number;
  readonly runs: number;
}

/** A chunk a worker holds: its lease runs out unless renewed. */
export interface ChunkClaim {
  readonly scanId: string;
  readonly teamId: string;
  readonly chunk: number;
  readonly chunkCount: number;
  readonly firstTarget: number;
  readonly targetCount: number;
  readonly runsTotal: number;
  /** Times a worker took it, this one included. */
  readonly attempts: number;
  readonly worker: string;
}

export type ChunkState = 'pending' | 'running' | 'done' | 'failed';

export interface ChunkStatus {
  readonly chunk: number;
  readonly state: ChunkState;
  readonly firstTarget: number;
  readonly targetCount: number;
  readonly runsTotal: number;
  readonly runsDone: number;
  readonly attempts: number;
  readonly worker: string | null;
  readonly lastError: string;
}

/** Which queued scans a worker may take. */
export interface ClaimScope {
  /** Only this team's scans (every team's when undefined). */
  readonly teamId?: string | undefined;
  /**
   * Fingerprints of the worker's secret entries: a scan planned with an entry not among them is
   * not taken (none given: only scans planned without secrets).
   */
  readonly entries?: readonly string[];
}

/** No planned entry of the scan `s` is missing from `entries`. */
function coveredBy(entries: readonly string[]) {
  return sql`not exists (select 1 from scan_auth a where a.scan_id = s.id and a.planned = 1
    and not (a.fingerprint = any(${[...entries]}::text[])))`;
}

/** The lease clock is the database's, so workers on machines whose clocks differ agree on expiry. */
const DB_NOW = sql<number>`(extract(epoch from statement_timestamp()) * 1000)::bigint`;

/**
 * The chunks of queued scans, on PostgreSQL: the queue workers take them from, and the ledger of
 * what is done. A worker claims the oldest chunk that is pending or whose lease ran out (a dead
 * worker's) with `FOR UPDATE SKIP LOCKED`, so workers never wait on each other nor take the same
 * chunk; it renews its lease while it runs the chunk, and completes or gives it back. Every change
 * is guarded by the worker's id: a worker whose lease was taken over can change nothing.
 *
 * Why not a job-queue library: pg-boss 10 (the last for Node 20) has no heartbeat, so a job's one
 * liveness bound is its expiry, which must then be both longer than the longest chunk and the
 * time a dead worker's chunk waits; graphile-worker needs Node 22 and waits hours for a dead
 * worker's jobs. And the chunk ledger has to live in the store anyway, in the transactions that
 * record progress and finish the scan exactly once: one table and these statements do both.
 */
export class ScanChunks {
  constructor(private readonly conn: Connection) {}

  /** The queue's SQL is PostgreSQL's (`SKIP LOCKED`, the server's clock). */
  private postgres(): Connection {
    if (this.conn.engine !== 'postgres') {
      throw new StoreRequestError('the scan queue needs PostgreSQL (--db postgres://…)', 'invalid');
    }
    return this.conn;
  }

  /**
   * Takes the next chunk for `worker`, leased for `leaseMs`, of any team's scans or only of
   * `teamId`'s, and only of scans whose planned secret entries are all among the worker's `entries`
   * (fingerprints); undefined when none is waiting.
   */
  async claim(worker: string, leaseMs: number, scope: ClaimScope = {}): Promise<ChunkClaim | undefined> {
    const { teamId } = scope;
    const ofTeam = teamId === undefined ? sql`` : sql`and s.team_id = ${teamId}`;
    const entries = [...(scope.entries ?? [])];
    return writeTransaction(this.postgres(), async (db) => {
      const claimed = await sql<ScanChunkTable & { team_id: string; chunk_count: number }>`
        update scan_chunk as c
        set state = 'running', worker = ${worker}, lease_until = ${DB_NOW} + ${leaseMs},
            attempts = c.attempts + 1, runs_done = 0, updated_at = ${Date.now()}
        from (
          select k.scan_id, k.chunk from scan_chunk k join scan s on s.id = k.scan_id
          where s.status in ('queued', 'running') ${ofTeam}
            and (k.state = 'pending' or (k.state = 'running' and k.lease_until < ${DB_NOW}))
            and ${coveredBy(entries)}
          order by s.created_at, k.scan_id, k.chunk
          limit 1
          for update of k skip locked
        ) as next
        where c.scan_id = next.scan_id and c.chunk = next.chunk
        returning c.*,
          (select s.team_id from scan s where s.id = c.scan_id) as team_id,
          (select count(*) from scan_chunk n where n.scan_id = c.scan_id) as chunk_count`.execute(db);
      const row = claimed.rows[0];
      if (row === undefined) return undefined;
      const now = Date.now();
      // A note on why the scan waited (see noteWaiting) is over once a worker takes it. A resumed
      // scan keeps its first start: its elapsed time counts from there, as a local -resume's does.
      await db
        .updateTable('scan')
        .set({
          status: 'running',
          started_at: sql<number>`coalesce(started_at, ${now})` as never,
          updated_at: now,
          failure_reason: '',
        })
        .where('id', '=', row.scan_id)
        .where('status', '=', 'queued')
        .execute();
      return {
        scanId: row.scan_id,
        teamId: row.team_id,
        chunk: row.chunk,
        chunkCount: Number(row.chunk_count),
        firstTarget: row.first_target,
        targetCount: row.target_count,
        runsTotal: row.runs_total,
        attempts: row.attempts,
        worker,
      };
    });
  }

  /**
   * Scans with chunks waiting that a worker with `entries` may not take, because they were planned
   * with secret entries it lacks; each with the labels of those entries.
   */
  async uncovered(scope: ClaimScope): Promise<{ readonly scanId: string; readonly missing: string[] }[]> {
    const ofTeam = scope.teamId === undefined ? sql`` : sql`and s.team_id = ${scope.teamId}`;
    const entries = [...(scope.entries ?? [])];
    const rows = await sql<{ scan_id: string; label: string }>`
      select a.scan_id, a.label from scan_auth a join scan s on s.id = a.scan_id
      where a.planned = 1 and not (a.fingerprint = any(${entries}::text[]))
        and s.status in ('queued', 'running') ${ofTeam}
        and exists (select 1 from scan_chunk k where k.scan_id = s.id
          and (k.state = 'pending' or (k.state = 'running' and k.lease_until < ${DB_NOW})))
      order by s.created_at, a.scan_id, a.label`.execute(this.postgres().db);
    const missing = new Map<string, string[]>();
    for (const row of rows.rows) missing.set(row.scan_id, [...(missing.get(row.scan_id) ?? []), row.label]);
    return [...missing].map(([scanId, labels]) => ({ scanId, missing: labels }));
  }

  /** Says why a queued scan waits (shown as its `failure_reason` until a worker takes it). */
  async noteWaiting(scanId: string, reason: string): Promise<void> {
    await this.postgres()
      .db.updateTable('scan')
      .set({ failure_reason: reason, updated_at: Date.now() })
      .where('id', '=', scanId)
      .where('status', '=', 'queued')
      .where('failure_reason', '!=', reason)
      .execute();
  }

  /**
   * Extends the lease and records the runs done, which moves the scan's progress. False when the
   * chunk is no longer the worker's (its lease ran out and another worker took it) or the scan
   * ended (failed): the worker should stop running it.
   */
  async renew(claim: ChunkClaim, runsDone: number, leaseMs: number): Promise<boolean> {
    return writeTransaction(this.postgres(), async (db) => {
      const renewed = await db
        .updateTable('scan_chunk')
        .set({
          lease_until: sql<number>`${DB_NOW} + ${leaseMs}` as never,
          runs_done: Math.min(runsDone, claim.runsTotal),
          updated_at: Date.now(),
        })
        .where('scan_id', '=', claim.scanId)
        .where('chunk', '=', claim.chunk)
        .where('worker', '=', claim.worker)
        .where('state', '=', 'running')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('scan').select('id').where('id', '=', claim.scanId).where('status', '=', 'running'),
          ),
        )
        .executeTakeFirst();
      if (Number(renewed.numUpdatedRows) === 0) return false;
      await updateProgress(db, claim.scanId);
      return true;
    });
  }

  /**
   * The chunk is done. When it was the scan's last, the scan is finished, by exactly one of the
   * workers however many complete chunks at once: completions of one scan take its row lock in
   * turn, so the last one sees every other chunk done. `lost`: the chunk is no longer the worker's.
   */
  async complete(claim: ChunkClaim): Promise<'done' | 'scan-finished' | 'lost'> {
    return writeTransaction(this.postgres(), async (db) => {
      await lockScan(db, claim.scanId);
      const done = await db
        .updateTable('scan_chunk')
        .set((eb) => ({
          state: 'done',
          runs_done: eb.ref('runs_total'),
          worker: null,
          lease_until: null,
          updated_at: Date.now(),
        }))
        .where('scan_id', '=', claim.scanId)
        .where('chunk', '=', claim.chunk)
        .where('worker', '=', claim.worker)
        .where('state', '=', 'running')
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) return 'lost';
      const open = await db
        .selectFrom('scan_chunk')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_id', '=', claim.scanId)
        .where('state', '!=', 'done')
        .executeTakeFirstOrThrow();
      if (Number(open.n) > 0) {
        await updateProgress(db, claim.scanId);
        return 'done';
      }
      const now = Date.now();
      const finished = await db
        .updateTable('scan')
        .set({
          status: 'finished',
          progress: 100,
          completed_at: now,
          updated_at: now,
          elapsed_ms: sql<number>`${now} - coalesce(started_at, created_at)` as never,
        })
        .where('id', '=', claim.scanId)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return Number(finished.numUpdatedRows) > 0 ? 'scan-finished' : 'done';
    });
  }

  /**
   * Gives the chunk back for another worker to run from the start. A worker that stops cleanly
   * gives back without `failure` (the try does not count); with `failure`, the try counts, and
   * once a chunk has failed `maxAttempts` times the scan fails with the reason.
   */
  async giveBack(
    claim: ChunkClaim,
    failure?: { readonly reason: string; readonly maxAttempts: number },
  ): Promise<'pending' | 'scan-failed' | 'lost'> {
    return writeTransaction(this.postgres(), async (db) => {
      await lockScan(db, claim.scanId);
      const exhausted = failure !== undefined && claim.attempts >= failure.maxAttempts;
      const given = await db
        .updateTable('scan_chunk')
        .set((eb) => ({
          state: exhausted ? 'failed' : 'pending',
          worker: null,
          lease_until: null,
          runs_done: 0,
          attempts: failure === undefined ? eb('attempts', '-', 1) : eb.ref('attempts'),
          last_error: failure?.reason ?? '',
          updated_at: Date.now(),
        }))
        .where('scan_id', '=', claim.scanId)
        .where('chunk', '=', claim.chunk)
        .where('worker', '=', claim.worker)
        .where('state', '=', 'running')
        .executeTakeFirst();
      if (Number(given.numUpdatedRows) === 0) return 'lost';
      if (!exhausted) {
        await updateProgress(db, claim.scanId);
        return 'pending';
      }
      const now = Date.now();
      const attempts = claim.attempts === 1 ? 'once' : `${claim.attempts} times`;
      await db
        .updateTable('scan')
        .set({
          status: 'failed',
          failure_reason: `chunk ${claim.chunk + 1} of ${claim.chunkCount} failed ${attempts}: ${failure.reason}`,
          completed_at: now,
          updated_at: now,
          elapsed_ms: sql<number>`${now} - coalesce(started_at, created_at)` as never,
        })
        .where('id', '=', claim.scanId)
        .where('status', 'in', ['queued', 'running'])
        .execute();
      return 'scan-failed';
    });
  }

  /**
   * `-resume` of a queued scan that failed: it is queued again, and every chunk not done is
   * pending again with its tries counted from zero; the chunks done are not run again. Undefined
   * when the scan is not a failed queued scan (it finished, runs, or was resumed meanwhile).
   */
  async requeue(scanId: string): Promise<{ readonly pending: number; readonly done: number } | undefined> {
    return writeTransaction(this.postgres(), async (db) => {
      await lockScan(db, scanId);
      const queued = await db
        .updateTable('scan')
        .set({
          status: 'queued',
          failure_reason: '',
          completed_at: null,
          elapsed_ms: null,
          updated_at: Date.now(),
        })
        .where('id', '=', scanId)
        .where('status', '=', 'failed')
        .where('is_cloud', '=', 1)
        .executeTakeFirst();
      if (Number(queued.numUpdatedRows) === 0) return undefined;
      const pending = await db
        .updateTable('scan_chunk')
        .set({
          state: 'pending',
          worker: null,
          lease_until: null,
          runs_done: 0,
          attempts: 0,
          last_error: '',
          updated_at: Date.now(),
        })
        .where('scan_id', '=', scanId)
        .where('state', '!=', 'done')
        .executeTakeFirst();
      const done = await db
        .selectFrom('scan_chunk')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_id', '=', scanId)
        .where('state', '=', 'done')
        .executeTakeFirstOrThrow();
      return { pending: Number(pending.numUpdatedRows), done: Number(done.n) };
    });
  }

  /** The scan's chunks, in order (none for a scan that was not queued). */
  async ofScan(scanId: string): Promise<ChunkStatus[]> {
    const rows = await this.conn.db
      .selectFrom('scan_chunk')
      .selectAll()
      .where('scan_id', '=', scanId)
      .orderBy('chunk')
      .execute();
    return rows.map((row) => ({
      chunk: row.chunk,
      state: row.state as ChunkState,
      firstTarget: row.first_target,
      targetCount: row.target_count,
      runsTotal: row.runs_total,
      runsDone: row.runs_done,
      attempts: row.attempts,
      worker: row.worker,
      lastError: row.last_error,
    }));
  }
}

/** Inserts a queued scan's chunks, in the transaction that creates the scan. */
export async function insertChunks(
  db: Kysely<Database>,
  scanId: string,
  chunks: readonly ChunkInput[],
  now: number,
): Promise<void> {
  for (let start = 0; start < chunks.length; start += 500) {
    await db
      .insertInto('scan_chunk')
      .values(
        chunks.slice(start, start + 500).map((c, i) => ({
          scan_id: scanId,
          chunk: start + i,
          first_target: c.firstTarget,
          target_count: c.targetCount,
          runs_total: c.runs,
          runs_done: 0,
          state: 'pending',
          worker: null,
          lease_until: null,
          attempts: 0,
          last_error: '',
          updated_at: now,
        })),
      )
      .execute();
  }
}

async function lockScan(db: Kysely<Database>, scanId: string): Promise<void> {
  await db.selectFrom('scan').select('id').where('id', '=', scanId).forUpdate().execute();
}

/** The scan's progress from its chunks' runs; 100 is left for the moment it finishes. */
async function updateProgress(db: Kysely<Database>, scanId: string): Promise<void> {
  await sql`
    update scan set updated_at = ${Date.now()},
      progress = least(99, (select coalesce(sum(runs_done), 0) from scan_chunk where scan_id = ${scanId})
        * 100 / greatest(total_scan, 1))
    where id = ${scanId} and status = 'running'`.execute(db);
}
