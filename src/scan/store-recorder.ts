import type { ResultEvent } from '../event/index.js';
import { describeLocation, type Store } from '../store/index.js';
import { type AuthFigures, storedFigures } from './auth-ledger.js';
import type { ScanProgress, ScanRecorder, ScanStart } from './recorder.js';
import type { ScanRun } from './run-scan.js';
import { Batches, FindingBatches, SerialWrites } from './writes.js';

export interface StoreRecorderOptions {
  /** Least time between two progress writes (default 1 s); the end state is always written. */
  readonly progressIntervalMs?: number;
  readonly now?: () => number;
  /** `-resume`: this stored scan goes on (it must have failed), instead of a new one being created. */
  readonly resume?: string | undefined;
}

/**
 * Records a scan in the store as it runs: created `starting` then `running`, its progress at most
 * once a second, each finding as it is found (findings that arrive while a write is under way are
 * written together in the next transaction), and `finished` or `failed` with the reason at the end.
 * Writes happen one after another in the order reported. When a write fails, recording stops there
 * (the scan is marked failed if the store still answers) and `finish`/`fail` reject with why; the
 * scan itself goes on.
 */
export class StoreRecorder implements ScanRecorder {
  private scanId: string | undefined;
  private readonly writes = new SerialWrites();
  private readonly findings = new FindingBatches(this.writes, (batch) =>
    this.store.findings.addMany(this.started(), batch).then((added) => added.inserted),
  );
  private readonly runs = new Batches<ScanRun>(this.writes, async (batch) => {
    await this.store.runs.addDone(this.started(), batch);
    return batch.length;
  });
  private progressQueued = false;
  private lastProgressAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly teamId: string,
    private readonly options: StoreRecorderOptions = {},
  ) {}

  get location(): string | undefined {
    return this.scanId === undefined
      ? undefined
      : `scan ${this.scanId} in ${describeLocation(this.store.location)}`;
  }

  /** The id of the scan in the store, once started. */
  get id(): string | undefined {
    return this.scanId;
  }

  async start(scan: ScanStart): Promise<void> {
    if (this.options.resume !== undefined) {
      await this.store.scans.resume(this.options.resume);
      this.scanId = this.options.resume;
      return;
    }
    const created = await this.store.scans.create({
      teamId: this.teamId,
      name: scan.name,
      targets: scan.targets,
      templates: scan.templates.map((t) => ({
        id: t.id,
        path: t.path,
        ...(t.content === undefined ? {} : { content: t.content }),
      })),
      assetIds: scan.assetIds,
      totalScan: scan.totalRuns,
      rescanOf: scan.rescanOf,
    });
    this.scanId = created.id;
    await this.store.scans.markRunning(created.id);
  }

  progress(progress: ScanProgress): void {
    const now = this.now();
    if (this.progressQueued || now - this.lastProgressAt < (this.options.progressIntervalMs ?? 1000)) return;
    this.lastProgressAt = now;
    this.progressQueued = true;
    this.writes.enqueue(async () => {
      this.progressQueued = false;
      await this.store.scans.updateProgress(this.started(), { progress: progress.percent });
    });
  }

  finding(event: ResultEvent): void {
    this.findings.add(event);
  }

  runDone(run: ScanRun): void {
    this.runs.add(run);
  }

  authentication(figures: AuthFigures): void {
    this.writes.enqueue(() => this.store.authentication.add(this.started(), storedFigures(figures)));
  }

  async finish(): Promise<void> {
    this.writes.enqueue(() => this.store.scans.finish(this.started()));
    await this.settled();
  }

  async fail(reason: string): Promise<void> {
    this.writes.enqueue(() => this.store.scans.fail(this.started(), reason));
    await this.settled();
  }

  /** Resolves once everything reported so far is written (or recording has failed). */
  async written(): Promise<void> {
    await this.writes.settled().catch(() => undefined);
  }

  private started(): string {
    if (this.scanId === undefined) throw new Error('the scan was not started');
    return this.scanId;
  }

  private async settled(): Promise<void> {
    try {
      await this.writes.settled();
    } catch (error) {
      // Best effort: a scan whose recording broke off must not stay "running" for ever.
      if (this.scanId !== undefined) {
        const why = error instanceof Error ? error.message : String(error);
        await this.store.scans.fail(this.scanId, `recording failed: ${why}`).catch(() => undefined);
      }
      throw error;
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
