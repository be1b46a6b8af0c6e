import { describe, expect, it } from 'vitest';
import { literalPrefix, requiredPrefix } from './prefix.js';
import { subjectOf } from './subject.js';

describe('literalPrefix', () => {
  it('is the plain text a pattern starts with', () => {
    expect(literalPrefix('"version":"([0-9.]+)"')).toBe('"version":"');
    expect(literalPrefix('token=\\w+')).toBe('token=');
    expect(literalPrefix('colou?r')).toBe('colo');
    expect(literalPrefix('ab+c')).toBe('ab');
    expect(literalPrefix('ab{2}')).toBe('a');
    expect(literalPrefix('wp\\-content\\/x')).toBe('wp-content/x');
  });

  it('is undefined when a match may start with anything else', () => {
    expect(literalPrefix('^admin')).toBeUndefined();
    expect(literalPrefix('a?dmin')).toBeUndefined();
    expect(literalPrefix('\\badmin')).toBeUndefined();
    expect(literalPrefix('éa')).toBeUndefined();
  });
});

describe('requiredPrefix', () => {
  it('reads the leading flags: (?i) folds the prefix, (?-i) does not', () => {
    expect(requiredPrefix('(?i)admin', false)).toMatchObject({ text: 'admin', folded: true });
    expect(requiredPrefix('(?s)(?i-s)admin', false)).toMatchObject({ text: 'admin', folded: true });
    expect(requiredPrefix('(?-i)admin', true)).toMatchObject({ text: 'admin', folded: false });
    expect(requiredPrefix('admin', true)).toMatchObject({ text: 'admin', folded: true });
    expect(requiredPrefix('admin|root', false)).toBeUndefined();
    expect(requiredPrefix('(?i:admin)', false)).toBeUndefined();
  });

  it('finds a folded prefix where Go’s (?i) would match it, and the byte offset after non-ASCII text', () => {
    const prefix = requiredPrefix('(?i)ask', false);
    expect(prefix?.firstCandidate(subjectOf('é ASK'))).toBe(3);
    expect(prefix?.firstCandidate(subjectOf('a\u017f\u212a'))).toBe(0);
    expect(prefix?.firstCandidate(subjectOf('as'))).toBe(-1);
  });
});
