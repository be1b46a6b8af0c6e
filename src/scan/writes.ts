import type { ResultEvent } from '../event/index.js';

/**
 * Writes to the store one after another, in the order asked, without the caller waiting on each.
 * Once one fails, the later ones are skipped and `settled` rejects with its error.
 */
export class SerialWrites {
  private queue: Promise<void> = Promise.resolve();
  private error: { readonly cause: unknown } | undefined;

  enqueue(write: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.error !== undefined) return;
      try {
        await write();
      } catch (cause) {
        this.error = { cause };
      }
    });
  }

  /** The first write's failure, if one failed. */
  get failure(): { readonly cause: unknown } | undefined {
    return this.error;
  }

  /** Resolves once every write asked for so far is done; rejects with the first failure. */
  async settled(): Promise<void> {
    await this.queue;
    if (this.error !== undefined) throw this.error.cause;
  }
}

/**
 * Findings as they are found, written in batches: those that arrive while a write is under way go
 * together in the next, so a burst of findings costs a few transactions, not one each.
 */
export class FindingBatches {
  private pending: ResultEvent[] = [];
  private queued = false;
  /** Findings the store took as new (one already there, by its vuln hash, is not counted). */
  written = 0;

  constructor(
    private readonly writes: SerialWrites,
    private readonly write: (batch: ResultEvent[]) => Promise<number>,
  ) {}

  add(event: ResultEvent): void {
    this.pending.push(event);
    if (this.queued) return;
    this.queued = true;
    this.writes.enqueue(async () => {
      this.queued = false;
      const batch = this.pending;
      this.pending = [];
      this.written += await this.write(batch);
    });
  }
}
