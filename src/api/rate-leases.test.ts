import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowCounts } from './rate-counts.js';
import { type Lease, LeasedCounts, type LeaseKeeper, RateLeases } from './rate-leases.js';

const LONG_WINDOW = 1e9;
const LEASE = 100;

/** A keeper reached as a process reaches it: its answers come later, not at once. */
function keeperOf(leases: RateLeases, asked: { leases: number } = { leases: 0 }): LeaseKeeper {
  return {
    async lease(ask): Promise<Lease> {
      asked.leases++;
      await Promise.resolve();
      return leases.lease(ask);
    },
    async giveBack(back) {
      await Promise.resolve();
      leases.giveBack(back);
    },
  };
}

describe('rate limits held by leases', () => {
  it('never serves a key more than its limit, and serves all of it once leases are given back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.record({ holder: fc.nat(3), waitMs: fc.integer({ min: 0, max: 150 }) }), {
          maxLength: 120,
        }),
        async (holders, max, steps) => {
          let now = 0;
          const clock = () => now;
          const leases = new RateLeases(holders, new WindowCounts(clock));
          const processes = Array.from(
            { length: holders },
            () => new LeasedCounts(keeperOf(leases), clock, LEASE),
          );
          let served = 0;
          const ask = async (holder: number) => {
            const { current } = await processes[holder % holders]!.count('key', LONG_WINDOW, max);
            if (current <= max) served++;
            return current <= max;
          };
          for (const step of steps) {
            now += step.waitMs;
            await ask(step.holder);
            expect(served).toBeLessThanOrEqual(max);
          }
          // Every lease expires; asking again gives back what each left unused.
          for (let round = 0; round < 4 * max + 4; round++) {
            now += LEASE;
            let any = false;
            for (let holder = 0; holder < holders; holder++) any = (await ask(holder)) || any;
            if (!any) break;
          }
          expect(served).toBe(max);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('asks the keeper once for the requests that arrive together', async () => {
    const asked = { leases: 0 };
    const process = new LeasedCounts(keeperOf(new RateLeases(1), asked));
    const counts = await Promise.all(
      Array.from({ length: 20 }, () => process.count('key', LONG_WINDOW, 600)),
    );
    expect(asked.leases).toBe(1);
    expect(counts.map((count) => count.current)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('grants at most half of a fair share of what a key has left', () => {
    const leases = new RateLeases(2);
    expect(leases.lease({ key: 'k', windowMs: LONG_WINDOW, max: 600 })).toMatchObject({
      granted: 150,
      countedBefore: 0,
    });
    expect(leases.lease({ key: 'k', windowMs: LONG_WINDOW, max: 600 })).toMatchObject({
      granted: 112,
      countedBefore: 150,
    });
    expect(leases.lease({ key: 'other', windowMs: LONG_WINDOW, max: 3 })).toMatchObject({ granted: 1 });
  });

  it('takes back what was left of a window only from that window', () => {
    let now = 0;
    const leases = new RateLeases(1, new WindowCounts(() => now));
    const first = leases.lease({ key: 'k', windowMs: 1_000, max: 10 });
    expect(first).toMatchObject({ granted: 5, windowStartedAt: 0 });
    now = 1_000;
    const second = leases.lease({ key: 'k', windowMs: 1_000, max: 10 });
    expect(second).toMatchObject({ granted: 5, countedBefore: 0, windowStartedAt: 1_000 });
    leases.giveBack({ key: 'k', windowStartedAt: 0, unused: 5 });
    expect(leases.lease({ key: 'k', windowMs: 1_000, max: 10 })).toMatchObject({
      granted: 2,
      countedBefore: 5,
    });
    leases.giveBack({ key: 'k', windowStartedAt: 1_000, unused: 4 });
    expect(leases.lease({ key: 'k', windowMs: 1_000, max: 10 })).toMatchObject({ countedBefore: 3 });
  });

  it('refuses a key that has spent its window until the lease of its refusal expires', async () => {
    let now = 0;
    const leases = new RateLeases(1, new WindowCounts(() => now));
    const process = new LeasedCounts(keeperOf(leases), () => now, LEASE);
    for (let i = 1; i <= 2; i++) expect((await process.count('k', 10_000, 2)).current).toBe(i);
    now += LEASE;
    expect(await process.count('k', 10_000, 2)).toEqual({ current: 3, ttl: 10_000 - LEASE });
    now = 10_000;
    expect((await process.count('k', 10_000, 2)).current).toBe(1);
  });
});
