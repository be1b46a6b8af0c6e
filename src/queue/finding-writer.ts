import type { ResultEvent } from '../output/index.js';
import type { Store } from '../store/index.js';

/**
 * Writes a chunk's findings as they are found, one transaction at a time; findings that arrive
 * while a write is under way go together in the next. A finding recorded again (a chunk re-run
 * after its worker died) adds nothing: the store keeps one finding per vuln hash in a scan.
 */
export class FindingWriter {
  private pending: ResultEvent[] = [];
  private queue: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private failure: unknown;
  written = 0;

  constructor(
    private readonly store: Store,
    private readonly scanId: string,
  ) {}

  add(event: ResultEvent): void {
    this.pending.push(event);
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.queue = this.queue.then(async () => {
      this.flushQueued = false;
      const batch = this.pending;
      this.pending = [];
      if (this.failure !== undefined) return;
      try {
        this.written += (await this.store.findings.addMany(this.scanId, batch)).inserted;
      } catch (error) {
        this.failure = error;
      }
    });
  }

  /** Resolves once everything added is written; rejects with the first write's error. */
  async flushed(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
  }
}
