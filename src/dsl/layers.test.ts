import { describe, expect, it } from 'vitest';
import { LayeredScope } from './layers.js';

describe('LayeredScope', () => {
  const low = new Map<string, string | number>([
    ['a', 'low a'],
    ['b', 'low b'],
  ]);
  const high = new Map<string, string | number>([
    ['b', 'high b'],
    ['c', 3],
  ]);

  it('finds a name in the highest layer that has it', () => {
    const scope = new LayeredScope([low, high]);
    expect(scope.get('a')).toBe('low a');
    expect(scope.get('b')).toBe('high b');
    expect(scope.get('c')).toBe(3);
    expect(scope.get('d')).toBeUndefined();
    expect(scope.has('a')).toBe(true);
    expect(scope.has('d')).toBe(false);
  });

  it('iterates as a map filled layer after layer would, winning values in first-seen order', () => {
    const scope = new LayeredScope([low, high]);
    expect([...scope]).toEqual([
      ['a', 'low a'],
      ['b', 'high b'],
      ['c', 3],
    ]);
    expect(scope.size).toBe(3);
    expect([...scope.keys()]).toEqual(['a', 'b', 'c']);
    const seen: string[] = [];
    scope.forEach((value, key) => {
      seen.push(`${key}=${value}`);
    });
    expect(seen).toEqual(['a=low a', 'b=high b', 'c=3']);
  });

  it('shows later changes to a layer', () => {
    const top = new Map<string, string>();
    const scope = new LayeredScope([low, top]);
    top.set('a', 'changed');
    expect(scope.get('a')).toBe('changed');
  });
});
