import { setTimeout as sleep } from 'node:timers/promises';
import type { RunnableTemplate } from '../engine/index.js';
import { formatTruncatedBodies } from '../output/index.js';
import { loadStoredTemplate } from '../retest/index.js';
import {
  authenticationFailure,
  FindingBatches,
  figuresSince,
  plannedRuns,
  runScan,
  type ScanPlan,
  type ScanProblem,
  type ScanSession,
  ScanStats,
  SerialWrites,
  storedFigures,
} from '../scan/index.js';
import type { ChunkClaim, ClaimScope, Store } from '../store/index.js';
import { runNextRetestRequest } from './retest-requests.js';

export interface WorkerLog {
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
  problem(problem: ScanProblem): void;
}

export interface WorkerOptions {
  /** Unique among the workers sharing the store (host, process, random part). */
  readonly id: string;
  /** Template runs at once. */
  readonly concurrency: number;
  /** Runs of one template at once (`-bs`); undefined: `concurrency`. */
  readonly bulkSize?: number | undefined;
  /** How long a chunk stays this worker's without a renewal: a dead worker's chunk is taken again after this. */
  readonly leaseMs: number;
  /** How long to wait before asking again when no chunk is waiting. */
  readonly pollMs: number;
  /** Tries of a chunk that fails (not a worker stopping or dying) before its scan fails. */
  readonly maxAttempts: number;
  /** Only scans of this team (all teams' when undefined). */
  readonly teamId?: string | undefined;
  /** Stored templates this worker must not run: its own secret files' login templates. */
  readonly isLoginTemplate?: (path: string) => boolean;
  /**
   * Fingerprints of this worker's secret entries: it takes only scans planned with entries it has,
   * so a scan queued with secrets never runs unauthenticated.
   */
  readonly secretEntries: readonly string[];
  readonly log: WorkerLog;
}

export interface WorkerSummary {
  chunksDone: number;
  chunksGivenBack: number;
  scansFinished: number;
  findings: number;
  /** Retest requests run (see `POST /v1/scans/{vuln_id}/retest`). */
  retests: number;
}

/**
 * Takes chunks of queued scans from the store and runs them until `session.signal` aborts: each
 * chunk's targets × the scan's stored templates, findings recorded as found, the lease renewed and
 * the scan's progress moved while it runs. On stop, the chunk in hand is given back (its findings so
 * far are kept; the re-run adds none twice). Store outages are waited out.
 */
export async function runWorker(
  store: Store,
  session: ScanSession,
  options: WorkerOptions,
): Promise<WorkerSummary> {
  const summary: WorkerSummary = {
    chunksDone: 0,
    chunksGivenBack: 0,
    scansFinished: 0,
    findings: 0,
    retests: 0,
  };
  const templates = new TemplateCache(store, options);
  const scope = {
    entries: options.secretEntries,
    teamId: options.teamId,
  };
  const waiting = new WaitingScans(store, options);
  const retests = {
    runner: options.id,
    concurrency: options.concurrency,
    hasSecrets: options.secretEntries.length > 0,
    teamId: options.teamId,
    log: options.log,
  };
  while (!session.signal.aborted) {
    let claim: ChunkClaim | undefined;
    try {
      // A retest asked for through the API is one run: it goes before the next chunk.
      if (await runNextRetestRequest(store, session, retests)) {
        summary.retests++;
        continue;
      }
      claim = await store.chunks.claim(options.id, options.leaseMs, scope);
      if (claim === undefined) await waiting.report(scope);
    } catch (error) {
      options.log.error(`cannot take work from the store: ${messageOf(error)}; trying again`);
    }
    if (claim === undefined) {
      await sleep(options.pollMs, undefined, { signal: session.signal }).catch(() => undefined);
      continue;
    }
    await runClaimed(store, session, options, claim, templates, summary).catch((error: unknown) => {
      options.log.error(`${chunkName(claim)}: ${messageOf(error)}`);
    });
  }
  return summary;
}

async function runClaimed(
  store: Store,
  session: ScanSession,
  options: WorkerOptions,
  claim: ChunkClaim,
  templates: TemplateCache,
  summary: WorkerSummary,
): Promise<void> {
  const { log } = options;
  const loaded = await templates.of(claim.scanId);
  if (typeof loaded === 'string') {
    await giveBackFailed(store, options, claim, loaded);
    return;
  }
  const targets = await store.scans.targets(claim.scanId, {
    first: claim.firstTarget,
    count: claim.targetCount,
  });
  const plan: ScanPlan = {
    templates: claim.chunk === 0 ? loaded : loaded.filter((t) => !t.selfContained),
    targets,
  };
  log.info(
    `running ${chunkName(claim)}: ${plural(targets.length, 'target')}, ${plural(plannedRuns(plan), 'template run')}`,
  );
  const run = await runChunk(store, session, options, claim, plan);
  summary.findings += run.findings;
  if (run.outcome === 'lost') {
    log.warn(
      `${chunkName(claim)} is no longer this worker's (its scan ended or another worker took it over)`,
    );
  } else if (run.outcome === 'stopped') {
    if ((await store.chunks.giveBack(claim)) === 'pending') summary.chunksGivenBack++;
    log.info(`gave back ${chunkName(claim)}: another worker runs it again`);
  } else if (run.outcome !== 'done') {
    await giveBackFailed(store, options, claim, run.outcome.failure);
  } else {
    await completed(store, options, claim, summary);
  }
}

async function completed(
  store: Store,
  options: WorkerOptions,
  claim: ChunkClaim,
  summary: WorkerSummary,
): Promise<void> {
  const end = await store.chunks.complete(claim);
  if (end === 'lost') {
    options.log.warn(`${chunkName(claim)} is no longer this worker's; its runs here are not counted`);
    return;
  }
  summary.chunksDone++;
  options.log.info(`finished ${chunkName(claim)}`);
  if (end === 'scan-finished') {
    summary.scansFinished++;
    options.log.info(`scan ${claim.scanId} finished`);
  }
}

async function giveBackFailed(
  store: Store,
  options: WorkerOptions,
  claim: ChunkClaim,
  reason: string,
): Promise<void> {
  const end = await store.chunks.giveBack(claim, { reason, maxAttempts: options.maxAttempts });
  if (end === 'scan-failed') options.log.error(`scan ${claim.scanId} failed: ${chunkName(claim)}: ${reason}`);
  else if (end === 'pending')
    options.log.error(`${chunkName(claim)} failed (${reason}); it will be tried again`);
}

type ChunkOutcome = 'done' | 'stopped' | 'lost' | { readonly failure: string };

/** Runs the plan while a heartbeat renews the lease; a lost lease stops the runs at once. */
async function runChunk(
  store: Store,
  session: ScanSession,
  options: WorkerOptions,
  claim: ChunkClaim,
  plan: ScanPlan,
): Promise<{ outcome: ChunkOutcome; findings: number }> {
  const stop = new AbortController();
  const onStop = () => stop.abort(session.signal.reason);
  session.signal.addEventListener('abort', onStop, { once: true });
  const stats = new ScanStats(plannedRuns(plan));
  const writes = new SerialWrites();
  // A finding recorded again (a chunk run again after its worker died) adds nothing: the store
  // keeps one finding per vuln hash in a scan.
  const writer = new FindingBatches(writes, (batch) =>
    store.findings.addMany(claim.scanId, batch).then((added) => added.inserted),
  );
  session.forgetFailures();
  const authBefore = session.ledger.figures();
  const heartbeat = new Heartbeat(store, claim, stats, options, () => stop.abort(new Error('lease lost')));
  let aborted: boolean;
  try {
    ({ aborted } = await runScan(plan, {
      concurrency: options.concurrency,
      bulkSize: options.bulkSize,
      run: session.runOptions(false),
      stats,
      listener: {
        onEvent: (event) => {
          if (event['matcher-status']) writer.add(event);
        },
        onProblem: (problem) => options.log.problem(problem),
      },
      resolveTarget: (target, signal) => session.resolveTarget(target, signal),
      redact: session.redact,
      signal: stop.signal,
    }));
  } catch (error) {
    return { outcome: { failure: `internal error: ${messageOf(error)}` }, findings: writer.written };
  } finally {
    session.signal.removeEventListener('abort', onStop);
    await heartbeat.stop();
  }
  const authentication = figuresSince(authBefore, session.ledger.figures());
  const truncated = formatTruncatedBodies(stats.truncatedBodies);
  if (truncated !== undefined) options.log.warn(`${chunkName(claim)}: ${truncated}`);
  try {
    await writes.settled();
    await store.authentication.add(claim.scanId, storedFigures(authentication));
  } catch (error) {
    return {
      outcome: { failure: `findings could not be recorded: ${messageOf(error)}` },
      findings: writer.written,
    };
  }
  // A stop that came once every run was done does not waste the chunk.
  const complete = !aborted || stats.runsDone >= stats.runsTotal;
  const failedLogin = authenticationFailure(authentication);
  if (!heartbeat.lost && complete && failedLogin !== undefined)
    return { outcome: { failure: failedLogin }, findings: writer.written };
  const outcome = heartbeat.lost ? 'lost' : complete ? 'done' : 'stopped';
  return { outcome, findings: writer.written };
}

/**
 * Scans this worker may not take because they were planned with secret entries its files lack:
 * said once per scan in its log, and on the scan while it is queued (its `failure_reason`), so the
 * scan shows why it waits instead of waiting in silence.
 */
class WaitingScans {
  private readonly reported = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly options: WorkerOptions,
  ) {}

  async report(scope: ClaimScope): Promise<void> {
    for (const { scanId, missing } of await this.store.chunks.uncovered(scope)) {
      if (this.reported.has(scanId)) continue;
      if (this.reported.size >= 1000) this.reported.clear();
      this.reported.add(scanId);
      const entries = missing.join(', ');
      this.options.log.warn(
        `not taking scan ${scanId}: it was planned with ${entries}, which this worker's secret files lack (start a worker with them, -sf)`,
      );
      await this.store.chunks.noteWaiting(
        scanId,
        `waiting for a worker whose secret files have ${entries}: worker ${this.options.id} lacks ${missing.length === 1 ? 'it' : 'them'}`,
      );
    }
  }
}

/** Renews the chunk's lease (and records its progress) every third of the lease, one renewal at a time. */
class Heartbeat {
  lost = false;
  private running: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly claim: ChunkClaim,
    private readonly stats: ScanStats,
    private readonly options: WorkerOptions,
    private readonly onLost: () => void,
  ) {
    this.timer = setInterval(() => this.beat(), Math.max(50, Math.floor(options.leaseMs / 3)));
  }

  private beat(): void {
    this.running = this.running.then(async () => {
      if (this.lost) return;
      try {
        if (await this.store.chunks.renew(this.claim, this.stats.runsDone, this.options.leaseMs)) return;
        this.lost = true;
        this.onLost();
      } catch (error) {
        // The lease may still be ours: keep running and try again on the next beat.
        this.options.log.warn(`cannot renew the lease of ${chunkName(this.claim)}: ${messageOf(error)}`);
      }
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

/**
 * The runnable templates of recently seen scans, parsed once per scan from the text the store kept.
 * A reason (string) when the scan's templates cannot run here.
 */
class TemplateCache {
  private readonly scans = new Map<string, Promise<RunnableTemplate[] | string>>();

  constructor(
    private readonly store: Store,
    private readonly options: WorkerOptions,
  ) {}

  of(scanId: string): Promise<RunnableTemplate[] | string> {
    let loaded = this.scans.get(scanId);
    if (loaded === undefined) {
      loaded = this.load(scanId);
      this.scans.set(scanId, loaded);
      if (this.scans.size > 32) this.scans.delete(this.scans.keys().next().value as string);
    }
    return loaded;
  }

  private async load(scanId: string): Promise<RunnableTemplate[] | string> {
    const templates: RunnableTemplate[] = [];
    for (const ref of await this.store.scans.templates(scanId)) {
      if (this.options.isLoginTemplate?.(ref.path) === true) {
        this.options.log.info(
          `not running ${ref.id} of scan ${scanId}: it is a login template of the secret files`,
        );
        continue;
      }
      const stored = await loadStoredTemplate(ref);
      if (stored.status === 'ok') templates.push(stored.template);
      else if (stored.status === 'unsupported') this.options.log.warn(`skipped ${ref.id}: ${stored.reason}`);
      else return `template ${ref.id}: ${stored.reason}`;
    }
    return templates;
  }
}

function chunkName(claim: ChunkClaim): string {
  return `chunk ${claim.chunk + 1}/${claim.chunkCount} of scan ${claim.scanId}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
