/**
 * The two bounds a scan puts on its traffic, as small pieces to compose around a `Send`:
 * a global request rate (`-rl`, requests per second, one token bucket shared by every request of
 * the scan) and a bound on requests in flight (`-c`).
 */
import { TokenBucket } from 'limiter';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Send } from './client.js';

/**
 * A token bucket refilled at `perSecond` that holds a tenth of a second's tokens (at least one),
 * full at the start: requests are paced evenly, and no second, at the start or after a pause,
 * carries more than `perSecond` plus that tenth. (A bucket of a whole second's tokens would let a
 * saved-up second go at once on top of the next one: twice the rate asked for.)
 */
export class RateLimiter {
  private readonly bucket: TokenBucket;

  constructor(readonly perSecond: number) {
    if (!Number.isFinite(perSecond) || perSecond <= 0) {
      throw new RangeError(`rate limit must be a positive number of requests per second, got ${perSecond}`);
    }
    const size = Math.max(1, Math.ceil(perSecond / 10));
    this.bucket = new TokenBucket({ bucketSize: size, tokensPerInterval: perSecond, interval: 'second' });
    this.bucket.content = size;
  }

  /** Resolves when the caller may send one request; callers are served in order. */
  async take(): Promise<void> {
    await this.bucket.removeTokens(1);
  }
}

/** At most `max` calls of the wrapped functions run at once; the others wait in order. */
export class ConcurrencyLimit {
  private readonly limit: LimitFunction;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max <= 0)
      throw new RangeError(`concurrency must be a positive integer, got ${max}`);
    this.limit = pLimit(max);
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.limit(task);
  }

  get active(): number {
    return this.limit.activeCount;
  }

  get waiting(): number {
    return this.limit.pendingCount;
  }
}

/** `send` with a rate limit and/or a concurrency bound in front of it (a slot is taken before a token). */
export function limitSend(send: Send, limits: { rate?: RateLimiter; concurrency?: ConcurrencyLimit }): Send {
  const { rate, concurrency } = limits;
  const paced: Send =
    rate === undefined
      ? send
      : async (request, options) => {
          await rate.take();
          return send(request, options);
        };
  if (concurrency === undefined) return paced;
  return (request, options) => concurrency.run(() => paced(request, options));
}
