import { describe, expect, it } from 'vitest';
import { evaluate } from '../testing/evaluate.js';

describe('equals_any, regex_all, regex_any', () => {
  it('compare the first value with each of the others as text', () => {
    expect(evaluate('equals_any("200", 301, 200)')).toBe(true);
    expect(evaluate('equals_any("a", "b", "c")')).toBe(false);
  });

  it('match every or any value against one pattern', () => {
    expect(evaluate('regex_all("^v[0-9]+$", "v1", "v22")')).toBe(true);
    expect(evaluate('regex_all("^v[0-9]+$", "v1", "x")')).toBe(false);
    expect(evaluate('regex_any("^v[0-9]+$", "x", "v3")')).toBe(true);
    expect(evaluate('regex_any("^v[0-9]+$", "x", "y")')).toBe(false);
  });
});

describe('to_bool', () => {
  it.each([
    ['"true"', true],
    ['" TRUE "', true],
    ['"t"', true],
    ['"1"', true],
    ['"1.0"', true],
    ['1', true],
    ['"yes"', false],
    ['""', false],
    ['"0"', false],
    ['2', false],
  ])('reads %s as %s, as the dsl library does', (expression, expected) => {
    expect(evaluate(`to_bool(${expression})`)).toBe(expected);
  });
});

describe('to_title', () => {
  it('upper-cases the first letter of each word and lower-cases the rest', () => {
    expect(evaluate('to_title("hELLO wORLD, don\'t 1st-place")')).toBe("Hello World, Don't 1st-Place");
    expect(evaluate('to_title("élan vital", "fr")')).toBe('Élan Vital');
  });
});
