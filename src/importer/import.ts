import type { Readable } from 'node:stream';
import type { ResultEvent, Severity } from '../event/index.js';
import { boundedLines, formatBytes, printable } from '../source/index.js';
import { type Scan, type Store, StoreRequestError, type TemplateRef, targetOf } from '../store/index.js';
import { decodeEvent, parseTimestamp } from './decode-event.js';
import { nestsDeeperThan } from './json-depth.js';

export interface ImportTarget {
  readonly teamId: string;
  /** Create a new `uploaded` scan of this name… */
  readonly name?: string;
  /** …or add to this existing uploaded scan (what makes importing the same file twice add nothing). */
  readonly scanId?: string;
}

export interface BadLine {
  readonly line: number;
  readonly message: string;
}

export interface ImportReport {
  /** Undefined when no line was good (then no scan was created). */
  readonly scan: Scan | undefined;
  readonly lines: number;
  readonly imported: number;
  /** Findings the scan already had (same vuln hash). */
  readonly duplicates: number;
  /** `matcher-status: false` events: what was checked and did not match; not findings. */
  readonly unmatched: number;
  readonly severities: Record<Severity, number>;
  /** The first {@link MAX_REPORTED_ERRORS} bad lines; `badLines` counts them all. */
  readonly errors: readonly BadLine[];
  readonly badLines: number;
}

export const MAX_REPORTED_ERRORS = 100;
/**
 * Events written per transaction: on SQLite each commit rewrites the index pages the batch
 * touched, so larger batches import faster; memory grows by the batch, not by the file.
 */
export const IMPORT_BATCH = 5000;
/** Bytes of lines per transaction at most, so that a batch of large events stays a batch. */
export const IMPORT_BATCH_BYTES = 64 << 20;
/**
 * The longest line taken: far above a nuclei event with a full 10 MiB response, far below what
 * would let one line take the memory of the machine. A longer line is a bad line.
 */
export const MAX_LINE_BYTES = 32 << 20;
/** Lists and objects nested deeper than this make a bad line; real events nest a few levels. */
export const MAX_NESTING = 100;
const PUBLIC_TEMPLATE_URL = 'https://cloud.projectdiscovery.io/public/';

/**
 * The scan that holds what an import read before it stopped, and the state it was left in:
 * `failed`, the import's own scan marked so; `starting`, its own scan that could not be marked
 * (the store had gone away), never `uploaded` either way; `added-to`, the existing scan of `--scan`.
 */
export interface StoppedScan {
  readonly id: string;
  readonly left: 'failed' | 'starting' | 'added-to';
}

/**
 * The import stopped before the end of its input for a reason that is not one line's (the input
 * could not be read, the store failed): the scan it created is marked `failed` with that reason.
 */
export class ImportStoppedError extends Error {
  constructor(
    readonly reason: string,
    /** The last line read before it stopped. */
    readonly line: number,
    /** Undefined when nothing was imported before it stopped. */
    readonly scan: StoppedScan | undefined,
    options?: ErrorOptions,
  ) {
    super(`the import stopped after line ${line}: ${reason}`, options);
    this.name = 'ImportStoppedError';
  }
}

/**
 * Streams nuclei (or keyhole) JSONL results into an uploaded scan: memory stays flat however
 * large the file or its lines, bad lines are reported by number and skipped, good ones kept. The
 * scan is created when the first good line is read, so a file with no good line leaves nothing
 * behind; it is `starting` while the file is read and `uploaded` once all of it is, and an import
 * that stops early ({@link ImportStoppedError}) leaves it `failed`, never looking complete.
 */
export async function importJsonl(
  store: Store,
  input: Readable,
  target: ImportTarget,
  onBatch?: (report: ImportReport) => void,
): Promise<ImportReport> {
  const state = new ImportState(store, target);
  try {
    for await (const line of boundedLines(input, MAX_LINE_BYTES)) {
      if (line.tooLong !== undefined) {
        state.tooLong(line.number, line.tooLong.bytes);
        continue;
      }
      state.read(line.number, line.text);
      if (state.pending.length >= IMPORT_BATCH || state.pendingBytes >= IMPORT_BATCH_BYTES) {
        await state.flush();
        onBatch?.(state.report());
      }
    }
    await state.flush();
    await state.finish();
  } catch (error) {
    // A --scan that is not there or not an import is a wrong request, not an import cut short.
    if (error instanceof StoreRequestError && !state.holdsScan) throw error;
    throw await state.stop(error);
  }
  return state.report();
}

class ImportState {
  readonly pending: ResultEvent[] = [];
  pendingBytes = 0;
  private scan: Scan | undefined;
  private createdScan = false;
  private lines = 0;
  private imported = 0;
  private duplicates = 0;
  private unmatched = 0;
  private goodLines = 0;
  private badLines = 0;
  private readonly errors: BadLine[] = [];
  private readonly severities: Record<Severity, number> = {
    critical: 0,
    high: 0,
    medium: 0,
    low: 0,
    info: 0,
    unknown: 0,
  };
  private readonly knownTemplates = new Set<string>();
  private readonly knownTargets = new Set<string>();
  private earliest = Number.POSITIVE_INFINITY;
  private latest = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly target: ImportTarget,
  ) {}

  read(line: number, text: string): void {
    this.lines = line;
    if (text.trim() === '') return;
    if (nestsDeeperThan(text, MAX_NESTING)) {
      this.bad(line, `lists and objects nested more than ${MAX_NESTING} deep; a result event nests a few`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.bad(line, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    const decoded = decodeEvent(value);
    if (!decoded.ok) {
      this.bad(line, decoded.error);
      return;
    }
    this.goodLines++;
    const event = decoded.event;
    const time = event.timestamp === undefined ? Number.NaN : parseTimestamp(event.timestamp);
    if (!Number.isNaN(time)) {
      this.earliest = Math.min(this.earliest, time);
      this.latest = Math.max(this.latest, time);
    }
    if (event['matcher-status'] === false) this.unmatched++;
    else {
      this.pending.push(event);
      this.pendingBytes += text.length;
    }
  }

  get holdsScan(): boolean {
    return this.scan !== undefined;
  }

  tooLong(line: number, bytes: number): void {
    this.lines = line;
    this.bad(
      line,
      `the line is ${formatBytes(bytes)} long, over the limit of ${formatBytes(MAX_LINE_BYTES)}`,
    );
  }

  /** Marks the scan this import created as failed and says what happened. */
  async stop(cause: unknown): Promise<ImportStoppedError> {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new ImportStoppedError(reason, this.lines, await this.leaveScan(reason), { cause });
  }

  private async leaveScan(reason: string): Promise<StoppedScan | undefined> {
    const scan = this.scan;
    if (scan === undefined) return undefined;
    if (!this.createdScan) return { id: scan.id, left: 'added-to' };
    const marked = await this.store.scans
      .fail(scan.id, `the import stopped after line ${this.lines}: ${reason}`)
      .then(
        () => true,
        () => false,
      );
    return { id: scan.id, left: marked ? 'failed' : 'starting' };
  }

  async flush(): Promise<void> {
    if (this.goodLines === 0) return;
    const scan = await this.ensureScan();
    const batch = this.pending.splice(0);
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    await this.store.scans.addTemplates(scan.id, this.newTemplates(batch));
    await this.store.scans.addTargets(scan.id, this.newTargets(batch));
    const { inserted, severities } = await this.store.findings.addMany(scan.id, batch);
    this.imported += inserted;
    this.duplicates += batch.length - inserted;
    for (const severity of severities) this.severities[severity]++;
  }

  async finish(): Promise<void> {
    if (this.scan === undefined) return;
    const scan = await this.store.scans.require(this.scan.id);
    const elapsedMs = Number.isFinite(this.earliest) ? Math.max(0, this.latest - this.earliest) : 0;
    await this.store.scans.setImportSummary(scan.id, {
      elapsedMs: Math.max(elapsedMs, scan.elapsedMs),
      totalScan: scan.totalTarget * scan.totalTemplate,
    });
    if (this.createdScan) await this.store.scans.completeImport(scan.id);
    this.scan = await this.store.scans.require(scan.id);
  }

  report(): ImportReport {
    return {
      scan: this.scan,
      lines: this.lines,
      imported: this.imported,
      duplicates: this.duplicates,
      unmatched: this.unmatched,
      severities: { ...this.severities },
      errors: [...this.errors],
      badLines: this.badLines,
    };
  }

  private bad(line: number, message: string): void {
    this.badLines++;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ line, message: printable(message) });
  }

  private async ensureScan(): Promise<Scan> {
    if (this.scan !== undefined) return this.scan;
    const { teamId, scanId, name } = this.target;
    if (scanId !== undefined) {
      const existing = await this.store.scans.get(scanId, teamId);
      if (existing === undefined)
        throw new StoreRequestError(`no scan of this team has the id ${scanId}`, 'not_found');
      if (existing.status !== 'uploaded') {
        throw new StoreRequestError(
          `scan ${scanId} is a ${existing.status} scan, not an import; only imported scans take more results`,
          'conflict',
        );
      }
      for (const t of await this.store.scans.templates(scanId)) this.knownTemplates.add(t.id);
      for (const t of await this.store.scans.targets(scanId)) this.knownTargets.add(t);
      this.scan = existing;
    } else {
      this.scan = await this.store.scans.create({ teamId, name: name ?? 'import', status: 'starting' });
      this.createdScan = true;
    }
    return this.scan;
  }

  private newTemplates(batch: readonly ResultEvent[]): TemplateRef[] {
    const fresh: TemplateRef[] = [];
    for (const event of batch) {
      const id = event['template-id'];
      if (this.knownTemplates.has(id)) continue;
      this.knownTemplates.add(id);
      const url = event['template-url'] ?? '';
      const encoded = (event as { 'template-encoded'?: string })['template-encoded'];
      fresh.push({
        id,
        path: event['template-path'] ?? '',
        url,
        ...(encoded === undefined ? {} : { encoded }),
        isPublic: url.startsWith(PUBLIC_TEMPLATE_URL),
      });
    }
    return fresh;
  }

  private newTargets(batch: readonly ResultEvent[]): string[] {
    const fresh: string[] = [];
    for (const event of batch) {
      const target = targetOf(event);
      if (target === '' || this.knownTargets.has(target)) continue;
      this.knownTargets.add(target);
      fresh.push(target);
    }
    return fresh;
  }
}
