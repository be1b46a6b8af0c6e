import { describe, expect, it } from 'vitest';
import { evaluate } from '../testing/evaluate.js';

describe('wait_for', () => {
  it('waits the seconds asked, then gives true', () => {
    const started = performance.now();
    expect(evaluate('wait_for(1)')).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('refuses what is not a number of seconds', () => {
    expect(() => evaluate('wait_for("soon")')).toThrow(/wait_for: argument 1 must be a number of seconds/);
  });
});

describe('print_debug', () => {
  it('gives true and prints nothing, since its values may hold secrets', () => {
    expect(evaluate('print_debug("token", 1)')).toBe(true);
  });
});
