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
  /** Counts one request of `key` and answers its window's count so far (above `max`: refused). */
  count(key: string, windowMs: number, max: number): RateCount | Promise<RateCount>;
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
    const { current, ttl } = this.add(key, windowMs, 1);
    return { current, ttl };
  }

  /** Adds `n` to the key's running window (a new one if none runs); its count after, ttl and start. */
  add(key: string, windowMs: number, n: number): RateCount & { readonly startedAt: number } {
    const at = this.now();
    let window = this.windows.get(key);
    if (window === undefined || at - window.startedAt >= windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.mostKeys) this.dropOldest(at, windowMs);
      window = { current: 0, startedAt: at };
      this.windows.set(key, window);
    }
    window.current += n;
    return { current: window.current, ttl: windowMs - (at - window.startedAt), startedAt: window.startedAt };
  }

  /** The count of the key's running window; 0 when none runs. */
  peek(key: string, windowMs: number): number {
    const window = this.windows.get(key);
    return window === undefined || this.now() - window.startedAt >= windowMs ? 0 : window.current;
  }

  /** Takes `n` back from the key's window that started at `startedAt`, if that one still runs. */
  takeBack(key: string, startedAt: number, n: number): void {
    const window = this.windows.get(key);
    if (window?.startedAt === startedAt) window.current = Math.max(0, window.current - n);
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

/** `@fastify/rate-limit`'s store over `counts`: the plugin constructs it, and every route shares it. */
export function rateLimitStore(counts: RateCounts): FastifyRateLimitStoreCtor {
  return class CountsStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: RateCount) => void,
      timeWindow: number,
      max: number,
    ): void {
      try {
        const counted = counts.count(key, timeWindow, max);
        if (counted instanceof Promise) counted.then((result) => callback(null, result), callback);
        else callback(null, counted);
      } catch (error) {
        callback(error as Error);
      }
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
