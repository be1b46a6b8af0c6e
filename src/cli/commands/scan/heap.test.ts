import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag, LARGE_SELECTION } from './heap.js';

const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

describe("a scan's limit on the heap's growth", () => {
  it('is set for a large selection of templates', () => {
    expect(heapGrowthFlag(LARGE_SELECTION, [])).toBe(flag);
    expect(heapGrowthFlag(10_000, ['--enable-source-maps', '--max-old-space-size=2048'])).toBe(flag);
  });

  it('is left to V8 for a smaller selection', () => {
    expect(heapGrowthFlag(LARGE_SELECTION - 1, [])).toBeUndefined();
    expect(heapGrowthFlag(10, [])).toBeUndefined();
  });

  it("is not set when the user gave a growth on node's own command line, with dashes or underscores", () => {
    expect(heapGrowthFlag(10_000, ['--heap-growing-percent=80'])).toBeUndefined();
    expect(heapGrowthFlag(10_000, ['--trace-gc', '--heap_growing_percent=20'])).toBeUndefined();
  });
});
