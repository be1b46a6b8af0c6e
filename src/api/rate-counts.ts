import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/** A key's requests in its current window, and the milliseconds left of that window. */
export interface RateCount {
  readonly current: number;
  readonly ttl: number;
}

/**
 * Where each API key's requests are counted: this process's memory ({@link WindowCounts}) or, for
 * `keyhole serve --processes N`, counts its processes share, so that a key's limit holds whichever
 * process a connection lands on.
 */
export interface RateCounts {
  /** Counts one request of `key` and answers its window's count so far. */
  count(key: string, windowMs: number): RateCount | Promise<RateCount>;
}

/** The most keys counted at once; past it the oldest windows are dropped first. */
const MOST_KEYS = 100_000;

/**
 * Fixed windows per key, starting at a key's first request (as `@fastify/rate-limit`'s own
 * store counts). Written here rather than taken from that store because the counts must also be
 * kept by `serve`'s first process for the others, outside any Fastify app.
 */
export class WindowCounts implements RateCounts {
  /** In the order the windows started, so the oldest come first when some must go. */
  private readonly windows = new Map<string, { current: number; startedAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly mostKeys: number = MOST_KEYS,
  ) {}

  count(key: string, windowMs: number): RateCount {
    const at = this.now();
    const window = this.windows.get(key);
    if (window !== undefined && at - window.startedAt < windowMs) {
      window.current++;
      return { current: window.current, ttl: windowMs - (at - window.startedAt) };
    }
    this.windows.delete(key);
    if (this.windows.size >= this.mostKeys) this.dropOldest(at, windowMs);
    this.windows.set(key, { current: 1, startedAt: at });
    return { current: 1, ttl: windowMs };
  }

  get size(): number {
    return this.windows.size;
  }

  /** Ended windows first; if none had ended, the oldest tenth. */
  private dropOldest(at: number, windowMs: number): void {
    for (const [key, window] of this.windows) {
      if (at - window.startedAt < windowMs) break;
      this.windows.delete(key);
    }
    if (this.windows.size < this.mostKeys) return;
    let dropping = Math.ceil(this.mostKeys / 10);
    for (const key of this.windows.keys()) {
      if (dropping-- === 0) break;
      this.windows.delete(key);
    }
  }
}

/** `@fastify/rate-limit`'s store over `counts`. */
export function rateLimitStore(counts: RateCounts): FastifyRateLimitStoreCtor {
  const store: FastifyRateLimitStore = {
    incr(key, callback, timeWindow) {
      try {
        const counted = counts.count(key, timeWindow);
        if (counted instanceof Promise) counted.then((result) => callback(null, result), callback);
        else callback(null, counted);
      } catch (error) {
        callback(error as Error);
      }
    },
    child: () => store,
  };
  return class {
    constructor() {
      // biome-ignore lint/correctness/noConstructorReturn: the plugin constructs its store with `new`; every route shares one.
      return store;
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
