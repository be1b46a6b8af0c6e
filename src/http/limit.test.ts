import { describe, expect, it } from 'vitest';
import { RateLimiter } from './limit.js';

describe('RateLimiter', () => {
  it('paces requests to the rate: no second carries more than the rate and a tenth of it', async () => {
    const limiter = new RateLimiter(50);
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 80 }, async () => {
        await limiter.take();
        times.push(performance.now());
      }),
    );
    // A busy machine can only spread the requests out more, never bunch them up.
    const busiestSecond = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(busiestSecond).toBeLessThanOrEqual(55);
    // 5 tokens at the start, then 75 at 50 per second: at least 1.5 s.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1400);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => new RateLimiter(0)).toThrow(
      'rate limit must be a positive number of requests per second, got 0',
    );
    expect(() => new RateLimiter(Number.NaN)).toThrow(RangeError);
  });
});
