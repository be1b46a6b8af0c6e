import type { OastClient } from './client.js';
import type { Interaction } from './protocol.js';

/** nuclei's defaults for `-interactions-*`. */
export const OAST_DEFAULTS = {
  cacheSize: 5000,
  evictionSeconds: 60,
  pollSeconds: 5,
  cooldownSeconds: 5,
} as const;

export interface WatcherOptions {
  /** How many callback names keep their interactions (the oldest names are forgotten first). */
  readonly cacheSize: number;
  /** Milliseconds such interactions are kept. */
  readonly evictionMs: number;
  /** Milliseconds between polls. */
  readonly pollMs: number;
  /** Milliseconds a run waits for callbacks after its requests, before it is closed without them. */
  readonly cooldownMs: number;
  /** A poll that failed (the watcher keeps polling). */
  readonly onPollError?: (error: unknown) => void;
}

interface Waiter {
  readonly ids: ReadonlySet<string>;
  /** Returns true when the waiter needs no more interactions. */
  readonly take: (interaction: Interaction) => boolean;
  readonly finish: () => void;
}

/**
 * Watches one registration for a scan: polls the server on a period, hands each interaction to the
 * runs waiting for its callback name, and keeps the interactions of each name in a bounded cache that
 * forgets them after a while: a run may make its request before it starts waiting, and a later request
 * of a run may wait for the name an earlier one wrote.
 */
export class InteractionWatcher {
  readonly #cache = new Map<string, { interactions: Interaction[]; at: number }>();
  readonly #waiters = new Set<Waiter>();
  readonly #timer: NodeJS.Timeout;
  #polling: Promise<void> | undefined;
  #closed = false;

  constructor(
    readonly client: OastClient,
    private readonly options: WatcherOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.#timer = setInterval(() => void this.pollNow(), options.pollMs);
    this.#timer.unref();
  }

  /** A new callback name for one request. */
  newName(): { host: string; uniqueId: string } {
    return this.client.newName();
  }

  /**
   * Hands `take` the interactions of the names `ids`, as they arrive, until it returns true or the
   * cooldown passes (with one last poll at its end), or `signal` aborts; resolves then.
   */
  waitFor(
    ids: Iterable<string>,
    take: (interaction: Interaction) => boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    const wanted = new Set([...ids].map((id) => id.toLowerCase()));
    return new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        ids: wanted,
        take: (interaction) => !done && take(interaction),
        finish: () => {
          if (done) return;
          done = true;
          if (timer) clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      if (signal?.aborted === true || this.fromCache(waiter) || this.#closed) {
        waiter.finish();
        return;
      }
      signal?.addEventListener('abort', () => waiter.finish(), { once: true });
      this.#waiters.add(waiter);
      timer = setTimeout(() => {
        void this.pollNow().then(() => waiter.finish());
      }, this.options.cooldownMs);
    });
  }

  /** Polls now, or joins the poll under way. */
  pollNow(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#polling ??= this.client
      .poll()
      .then((interactions) => this.deliver(interactions))
      .catch((error: unknown) => this.options.onPollError?.(error))
      .finally(() => {
        this.#polling = undefined;
      });
    return this.#polling;
  }

  /** Interactions the cache holds for `uniqueId` (for tests and figures). */
  cached(uniqueId: string): readonly Interaction[] {
    this.evictOld();
    return this.#cache.get(uniqueId)?.interactions ?? [];
  }

  /** Stops polling, lets every waiter finish and deregisters. */
  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    await this.#polling;
    this.#closed = true;
    for (const waiter of [...this.#waiters]) waiter.finish();
    await this.client.deregister().catch(() => {});
  }

  private deliver(interactions: readonly Interaction[]): void {
    this.evictOld();
    for (const interaction of interactions) {
      const id = interaction['unique-id'];
      this.remember(id, interaction);
      for (const waiter of [...this.#waiters]) {
        if (waiter.ids.has(id) && waiter.take(interaction)) waiter.finish();
      }
    }
  }

  private fromCache(waiter: Waiter): boolean {
    this.evictOld();
    for (const id of waiter.ids) {
      const entry = this.#cache.get(id);
      if (entry === undefined) continue;
      for (const interaction of [...entry.interactions]) if (waiter.take(interaction)) return true;
    }
    return false;
  }

  private remember(id: string, interaction: Interaction): void {
    const entry = this.#cache.get(id);
    if (entry !== undefined) {
      entry.interactions.push(interaction);
      return;
    }
    this.#cache.set(id, { interactions: [interaction], at: this.now() });
    while (this.#cache.size > this.options.cacheSize) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
  }

  private evictOld(): void {
    const limit = this.now() - this.options.evictionMs;
    for (const [id, entry] of this.#cache) {
      if (entry.at > limit) break;
      this.#cache.delete(id);
    }
  }
}
