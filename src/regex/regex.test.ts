import { describe, expect, it } from 'vitest';
import { GoRegex, RegexSyntaxError } from './regex.js';

function compile(source: string, options?: { caseInsensitive?: boolean }): GoRegex {
  const re = GoRegex.compile(source, options);
  if (re instanceof RegexSyntaxError) throw new Error(re.message);
  return re;
}

describe('GoRegex', () => {
  it('accepts Go-only syntax: inline flags, (?P<name>), POSIX classes, \\A and \\z', () => {
    expect(compile('(?i)set-cookie: (?P<v>[[:alnum:]]+)\\z').find('x SET-COOKIE: abc1')?.groups[1]).toBe(
      'abc1',
    );
    expect(compile('\\Aabc').test('xabc')).toBe(false);
    expect(compile('(?P<year>\\d{4})').namedGroups).toEqual({ year: 1 });
  });

  it('rejects lookaround and backreferences with the reason', () => {
    const lookahead = GoRegex.compile('a(?=b)');
    const backref = GoRegex.compile('(a)\\1');
    expect(lookahead).toBeInstanceOf(RegexSyntaxError);
    expect(backref).toBeInstanceOf(RegexSyntaxError);
    expect((lookahead as RegexSyntaxError).message).toContain('invalid regular expression "a(?=b)"');
  });

  it('matches whole inputs only when compiled with compileWhole', () => {
    const whole = GoRegex.compileWhole('.*\\.example\\.com', { caseInsensitive: true }) as GoRegex;
    expect(whole.test('A.Example.COM')).toBe(true);
    expect(whole.test('a.example.com.evil.test')).toBe(false);
    expect((GoRegex.compileWhole('a|b') as GoRegex).test('ab')).toBe(false);
  });

  it('finds all matches as Go does, skipping an empty match right after a match', () => {
    expect(
      compile('a*')
        .findAll('baaac')
        .map((m) => m.groups[0]),
    ).toEqual(['', 'aaa', '']);
    expect(
      compile('\\d+')
        .findAll('a1b22c333', 2)
        .map((m) => m.groups[0]),
    ).toEqual(['1', '22']);
  });

  it('reports groups that did not take part as undefined', () => {
    expect(compile('(a)|(b)').find('b')?.groups).toEqual(['b', undefined, 'b']);
  });

  it('runs in linear time on a pattern that backtracking engines explode on', () => {
    const evil = compile('(a+)+$');
    const started = performance.now();
    expect(evil.test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
