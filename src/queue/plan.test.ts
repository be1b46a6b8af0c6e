import { describe, expect, it } from 'vitest';
import { planChunks } from './plan.js';

describe('planChunks', () => {
  it('splits targets into runs of the chunk size, the last one shorter', () => {
    expect(planChunks(5, 2, { perTarget: 3, selfContained: 0 })).toEqual([
      { firstTarget: 0, targetCount: 2, runs: 6 },
      { firstTarget: 2, targetCount: 2, runs: 6 },
      { firstTarget: 4, targetCount: 1, runs: 3 },
    ]);
  });

  it('runs self-contained templates once, with the first chunk', () => {
    const chunks = planChunks(4, 2, { perTarget: 1, selfContained: 2 });
    expect(chunks.map((c) => c.runs)).toEqual([4, 2]);
  });

  it('makes one chunk of no targets for a scan of self-contained templates only', () => {
    expect(planChunks(0, 200, { perTarget: 0, selfContained: 1 })).toEqual([
      { firstTarget: 0, targetCount: 0, runs: 1 },
    ]);
  });

  it('counts every run of the scan exactly once', () => {
    for (const [targets, size] of [
      [1, 1],
      [199, 200],
      [200, 200],
      [201, 200],
      [1000, 7],
    ] as const) {
      const chunks = planChunks(targets, size, { perTarget: 3, selfContained: 1 });
      expect(chunks.reduce((sum, c) => sum + c.runs, 0)).toBe(1 + targets * 3);
      expect(chunks.reduce((sum, c) => sum + c.targetCount, 0)).toBe(targets);
    }
  });
});
