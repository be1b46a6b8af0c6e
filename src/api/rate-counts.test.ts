import { describe, expect, it } from 'vitest';
import { WindowCounts } from './rate-counts.js';

const MINUTE = 60_000;

describe('WindowCounts', () => {
  it('counts a key’s requests within its window and starts again after it', () => {
    let now = 1_000;
    const counts = new WindowCounts(() => now);
    expect(counts.count('a', MINUTE)).toEqual({ current: 1, ttl: MINUTE });
    now += 20_000;
    expect(counts.count('a', MINUTE)).toEqual({ current: 2, ttl: 40_000 });
    expect(counts.count('b', MINUTE)).toEqual({ current: 1, ttl: MINUTE });
    now += 39_999;
    expect(counts.count('a', MINUTE)).toEqual({ current: 3, ttl: 1 });
    now += 1;
    expect(counts.count('a', MINUTE)).toEqual({ current: 1, ttl: MINUTE });
  });

  it('drops ended windows first when it holds its most keys, then the oldest tenth', () => {
    let now = 0;
    const counts = new WindowCounts(() => now, 10);
    for (let i = 0; i < 5; i++) counts.count(`old${i}`, MINUTE);
    now = 30_000;
    for (let i = 0; i < 5; i++) counts.count(`new${i}`, MINUTE);
    now = MINUTE;
    counts.count('late', MINUTE);
    expect(counts.size).toBe(6);
    expect(counts.count('new0', MINUTE).current).toBe(2);
    for (let i = 0; i < 4; i++) counts.count(`more${i}`, MINUTE);
    expect(counts.size).toBe(10);
    counts.count('full', MINUTE);
    expect(counts.size).toBe(10);
    // `new0` began the oldest window still running: dropped, it starts again; `new1` was kept.
    expect(counts.count('new1', MINUTE).current).toBe(2);
    expect(counts.count('new0', MINUTE).current).toBe(1);
  });
});
