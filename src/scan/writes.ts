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
 * Records (findings, finished runs) as they come, written in batches: those that arrive while a
 * write is under way go together in the next, so a burst costs a few transactions, not one each.
 */
export class Batches<T> {
  private pending: T[] = [];
  private queued = false;
  /** What the writes counted (for findings: those the store took as new). */
  written = 0;

  constructor(
    private readonly writes: SerialWrites,
    private readonly write: (batch: T[]) => Promise<number>,
  ) {}

  add(item: T): void {
    this.pending.push(item);
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

/** Findings as they are found, in batches; `written` counts those the store took as new (by vuln hash). */
export class FindingBatches extends Batches<ResultEvent> {}
