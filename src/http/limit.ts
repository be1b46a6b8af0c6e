/** `-rl`: a global request rate, requests per second, one token bucket shared by every request of a scan. */
import { TokenBucket } from 'limiter';

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
