import { describe, expect, it } from 'vitest';
import { headerValues, removeHeader, setHeader } from './message.js';

describe('header lists', () => {
  it('setHeader replaces a header whatever its case, in place, with the new casing', () => {
    const headers = [
      ['Accept', '*/*'],
      ['authorization', 'Basic x'],
      ['X-A', '1'],
      ['AUTHORIZATION', 'Bearer y'],
    ] as const;
    expect(setHeader(headers, 'Authorization', 'Bearer z')).toEqual([
      ['Accept', '*/*'],
      ['Authorization', 'Bearer z'],
      ['X-A', '1'],
    ]);
  });

  it('setHeader appends a header that is absent', () => {
    expect(setHeader([['A', '1']], 'x-api-key', 'k')).toEqual([
      ['A', '1'],
      ['x-api-key', 'k'],
    ]);
  });

  it('headerValues and removeHeader compare names case-insensitively', () => {
    const headers = [
      ['Cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['Host', 'h'],
    ] as const;
    expect(headerValues(headers, 'COOKIE')).toEqual(['a=1', 'b=2']);
    expect(removeHeader(headers, 'cookie')).toEqual([['Host', 'h']]);
  });
});
