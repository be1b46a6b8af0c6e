import { describe, expect, it } from 'vitest';
import { escapeInvalidPercentPath } from './escape.js';

describe('a request path with an invalid percent escape', () => {
  it('has each % encoded as %25, as Go writes a path it could not parse', () => {
    expect(escapeInvalidPercentPath('/xyz/%u2s/%invalid')).toBe('/xyz/%25u2s/%25invalid');
  });

  it('has the bytes outside the path set encoded too, and its query kept as written', () => {
    expect(escapeInvalidPercentPath('/a b/%zz"?q=%u&x={y}')).toBe('/a%20b/%25zz%22?q=%u&x={y}');
  });

  it('is left as written when every escape is valid', () => {
    for (const target of [
      '/some%0A/%0D',
      '/%00test%20',
      '/test/..;/..;/',
      '/x?search=%u2s',
      '//CFIDE/a.cfc',
    ]) {
      expect(escapeInvalidPercentPath(target)).toBe(target);
    }
  });
});
