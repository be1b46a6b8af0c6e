import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  it('expires exactly the deadlines that are due and not cancelled, once each', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ms: fc.nat({ max: 100 }), cancel: fc.boolean() }), { maxLength: 40 }),
        (plan) => {
          const deadlines = new Deadlines(1000);
          const fired: number[] = [];
          const handles = plan.map(({ ms }, index) => deadlines.add(ms, () => fired.push(index)));
          plan.forEach(({ cancel }, index) => {
            if (cancel) deadlines.cancel(handles[index]);
          });
          const now = performance.now();
          deadlines.expireDue(now + 50);
          deadlines.expireDue(now + 50);
          const due = plan.flatMap(({ cancel }, index) =>
            !cancel && (handles[index]?.at ?? 0) <= now + 50 ? [index] : [],
          );
          expect(fired.toSorted((a, b) => a - b)).toEqual(due);
          deadlines.expireDue(now + 1000);
          expect(fired.toSorted((a, b) => a - b)).toEqual(
            plan.flatMap(({ cancel }, index) => (cancel ? [] : [index])),
          );
          deadlines.stop();
        },
      ),
    );
  });

  it('fires a deadline from its own timer', async () => {
    const deadlines = new Deadlines(5);
    const fired = await new Promise<number>((resolve) => {
      const start = performance.now();
      deadlines.add(20, () => resolve(performance.now() - start));
    });
    expect(fired).toBeGreaterThanOrEqual(19);
    deadlines.stop();
  });
});
