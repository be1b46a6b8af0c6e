import { describe, expect, it } from 'vitest';
import { HttpClient } from './client.js';
import { ConcurrencyLimit, limitSend, RateLimiter } from './limit.js';
import { closedAfterEach } from './testing/cleanups.js';
import { get, httpServer } from './testing/servers.js';

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

describe('ConcurrencyLimit', () => {
  it('never runs more than its bound at once and runs everything', async () => {
    const limit = new ConcurrencyLimit(3);
    let running = 0;
    let highest = 0;
    const task = async (value: number) => {
      running += 1;
      highest = Math.max(highest, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return value;
    };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => limit.run(() => task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(highest).toBe(3);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow('concurrency must be a positive integer, got 0');
  });
});

describe('limitSend', () => {
  const { defer } = closedAfterEach();

  it('bounds the requests a server sees at once', async () => {
    let inFlight = 0;
    let highest = 0;
    const server = await httpServer((_request, response) => {
      inFlight += 1;
      highest = Math.max(highest, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.end('ok');
      }, 10);
    });
    const http = new HttpClient();
    defer(
      () => server.close(),
      () => http.close(),
    );
    const send = limitSend(http.send, { concurrency: new ConcurrencyLimit(2), rate: new RateLimiter(1000) });
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => send(get(server.port, `/${i}`))));
    expect(responses.every((response) => response.statusCode === 200)).toBe(true);
    expect(highest).toBe(2);
  });
});
