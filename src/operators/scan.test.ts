import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoRegex } from '../regex/index.js';
import { literalPrefix, ScanRegex } from './scan.js';

describe('literalPrefix', () => {
  it('is the plain text a pattern starts with', () => {
    expect(literalPrefix('"version":"([0-9.]+)"')).toBe('"version":"');
    expect(literalPrefix('token=\\w+')).toBe('token=');
    expect(literalPrefix('colou?r')).toBe('colo');
    expect(literalPrefix('ab+c')).toBe('ab');
    expect(literalPrefix('ab{2}')).toBe('a');
  });

  it('is undefined when a match may start with anything else', () => {
    expect(literalPrefix('(?i)admin')).toBeUndefined();
    expect(literalPrefix('^admin')).toBeUndefined();
    expect(literalPrefix('admin|root')).toBeUndefined();
    expect(literalPrefix('a?dmin')).toBeUndefined();
    expect(literalPrefix('\\badmin')).toBeUndefined();
  });
});

describe('ScanRegex', () => {
  it('finds exactly what the plain regex finds', () => {
    const piece = fc.constantFrom(
      'a',
      'b',
      'ab',
      'x',
      '.',
      '\\b',
      '$',
      '(?m)^',
      '(a|b)',
      '[ab]+',
      'b*',
      '\\z',
      '(x)?',
      ' ',
    );
    const pattern = fc.array(piece, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(''));
    const corpus = fc
      .array(fc.constantFrom('a', 'b', 'x', ' ', '\n', 'ab', 'é'), { maxLength: 30 })
      .map((c) => c.join(''));
    fc.assert(
      fc.property(pattern, corpus, (source, text) => {
        const plain = GoRegex.compile(source) as GoRegex;
        const scan = ScanRegex.compile(source) as ScanRegex;
        expect(scan.findAllGroups(text)).toEqual(plain.findAll(text).map((match) => match.groups));
        expect(scan.findAllGroups(text, 1)).toEqual(plain.findAll(text, 1).map((match) => match.groups));
      }),
      { numRuns: 500 },
    );
  });
});
