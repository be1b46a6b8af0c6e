import { describe, expect, it } from 'vitest';
import { headerValues, isHeaderName, removeHeader, setHeader } from './message.js';

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

  it('isHeaderName folds the case of ASCII letters only', () => {
    expect(isHeaderName('Content-Length', 'content-length')).toBe(true);
    expect(isHeaderName('CONTENT-LENGTH', 'content-length')).toBe(true);
    expect(isHeaderName('content-length', 'content-length')).toBe(true);
    expect(isHeaderName('Content-Lengths', 'content-length')).toBe(false);
    expect(isHeaderName('Content-Lengtg', 'content-length')).toBe(false);
    // 0x0d | 0x20 is '-': only letters may differ by case.
    expect(isHeaderName('content\rlength', 'content-length')).toBe(false);
    expect(isHeaderName('content-l\u00e9ngth', 'content-length')).toBe(false);
    // The Kelvin sign lower-cases to "k" in Unicode, but is no HTTP header name.
    expect(isHeaderName('X-Api-\u212aey', 'x-api-key')).toBe(false);
    expect(isHeaderName('X@', 'x`')).toBe(false);
  });
});
