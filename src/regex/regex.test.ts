import { describe, expect, it } from 'vitest';
import { type CompileOptions, GoRegex, type RegexMatch, RegexSyntaxError } from './regex.js';
import { rememberBytes } from './subject.js';

function compile(source: string, options?: CompileOptions): GoRegex {
  const re = GoRegex.compile(source, options);
  if (re instanceof RegexSyntaxError) throw new Error(re.message);
  return re;
}

function refusal(source: string): string {
  const re = GoRegex.compile(source);
  if (!(re instanceof RegexSyntaxError)) throw new Error(`${source} compiled`);
  return re.message;
}

function all(source: string, text: string, options?: CompileOptions): (string | undefined)[] {
  return compile(source, options)
    .findAll(text)
    .map((m) => m.groups[0]);
}

function spans(matches: readonly RegexMatch[]): [number, number][] {
  return matches.map((m) => [m.start, m.end]);
}

/** V8's engine where a pattern is proven safe for it (RE2 elsewhere), whatever the text's length; RE2 alone. */
const ENGINES: [string, CompileOptions][] = [
  ['V8 where safe', { engines: 'v8' }],
  ['RE2 only', { engines: 're2' }],
];

/** A byte that is not valid UTF-8, in the text form the engine and the dsl hold bytes in. */
const BYTE_FF = '\udcff';

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
    const quoted = GoRegex.compileWhole('\\Qa.b') as GoRegex;
    expect([quoted.test('a.b'), quoted.test('a.bx'), quoted.test('xa.b')]).toEqual([true, false, false]);
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

describe('Go syntax where RE2 C++ differs', () => {
  it('refuses \\C, which RE2 C++ takes for any byte', () => {
    expect(refusal('a\\Cb')).toBe('invalid regular expression "a\\\\Cb": invalid escape sequence: `\\C`');
  });

  it('refuses the JavaScript escapes \\u and \\c, which the binding would rewrite', () => {
    expect(refusal('\\u0041')).toContain('invalid escape sequence: `\\u`');
    expect(refusal('\\cA')).toContain('invalid escape sequence: `\\c`');
  });

  it('refuses long Unicode class names, knowing only the ones Go knows', () => {
    expect(refusal('\\p{Letter}')).toContain('invalid character class range: `\\p{Letter}`');
    expect(refusal('[\\P{Script=Greek}]')).toContain('invalid character class range');
    expect(refusal('\\p{sc=Greek}')).toContain('invalid character class range');
    expect(refusal('\\p\\QN')).toContain('invalid character class range: `\\p\\`');
    expect(refusal('[\\P\\d]')).toContain('invalid character class range');
    expect(compile('\\p{L}\\p{Lu}\\p{Greek}').test('aΩβ')).toBe(true);
  });

  it('refuses group names that are not ASCII letters, digits or _', () => {
    expect(refusal('(?P<名>x)')).toContain('invalid named capture: `(?P<名>`');
    expect(refusal('(?P<a>x)(?<a>y)')).toContain('duplicate capture group name: `a`');
  });

  it('refuses possessive quantifiers, backreferences and lookarounds, naming the pattern', () => {
    expect(refusal('a*+')).toBe('invalid regular expression "a*+": invalid nested repetition operator: `*+`');
    expect(refusal('(a)\\1')).toBe('invalid regular expression "(a)\\\\1": invalid escape sequence: `\\1`');
    expect(refusal('(?<=a)b')).toContain('invalid named capture: `(?<=a)b`');
    expect(refusal('(?!a)')).toContain('invalid or unsupported Perl syntax');
    expect(refusal('(?>a)')).toContain('invalid or unsupported Perl syntax');
  });

  it('reports syntax errors in Go’s words', () => {
    expect(refusal('(')).toBe('invalid regular expression "(": missing closing ): `(`');
    expect(refusal('a{1001}')).toContain('invalid repeat count: `{1001}`');
    expect(refusal('a\\')).toContain('trailing backslash at end of expression');
  });

  it('takes \\Q…\\E as literal text, slashes and (?< included', () => {
    expect(all('\\Qhttp://a.b/(?<x>\\E', 'go http://a.b/(?<x> now')).toEqual(['http://a.b/(?<x>']);
    expect(all('\\Qa.b', 'axb a.b')).toEqual(['a.b']);
    expect(compile('\\Q(\\E(x)').groupCount).toBe(1);
  });

  it('keeps (?< inside a character class as three characters', () => {
    expect(all('[(?<]+', 'P(?<P')).toEqual(['(?<']);
  });

  it('names groups written (?P<name>…) and (?<name>…), without reading inherited names', () => {
    const re = compile('(?P<year>\\d{4})-(?<month>\\d\\d)');
    expect(re.namedGroups).toEqual({ year: 1, month: 2 });
    expect(re.find('on 2024-05')?.groups).toEqual(['2024-05', '2024', '05']);
    expect(re.namedGroups.constructor).toBeUndefined();
  });
});

describe.each(ENGINES)('Go matching semantics, %s', (_, engine) => {
  it('reads the flags (?i), (?m), (?s) and (?U)', () => {
    expect(all('(?i)admin', 'ADMIN Admin', engine)).toEqual(['ADMIN', 'Admin']);
    expect(all('(?m)^\\w+$', 'one\ntwo', engine)).toEqual(['one', 'two']);
    expect(all('(?s)a.b', 'a\nb', engine)).toEqual(['a\nb']);
    expect(all('(?U)a+', 'aaa', engine)).toEqual(['a', 'a', 'a']);
    expect(all('(?U)a+?', 'aaa', engine)).toEqual(['aaa']);
  });

  it('takes $ for the end of the text without (?m), not before a final newline', () => {
    expect(compile('a$', engine).test('a\n')).toBe(false);
    expect(compile('a\\z', engine).test('a\n')).toBe(false);
    expect(compile('(?m)a$', engine).test('a\n')).toBe(true);
  });

  it('does not match a newline with . unless (?s)', () => {
    expect(compile('a.b', engine).test('a\nb')).toBe(false);
    expect(compile('a.b', engine).test('a\rb')).toBe(true);
    expect(compile('a.b', engine).test('a\u2028b')).toBe(true);
  });

  it('ends lines with (?m) at \n alone, not \r or U+2028', () => {
    expect(compile('(?m)a$', engine).test('a\rb')).toBe(false);
    expect(compile('(?m)^b', engine).test('a\u2028b')).toBe(false);
    expect(all('(?m)^[a-z]+$', 'ab\ncd\r\nef', engine)).toEqual(['ab', 'ef']);
  });

  it('reads \\s, \\w, \\d and \\b as ASCII classes, as Go does', () => {
    expect(compile('a\\sb', engine).test('a\vb')).toBe(false);
    expect(compile('a\\sb', engine).test('a\fb')).toBe(true);
    expect(compile('a\\s+b', engine).test('a\u00a0b')).toBe(false);
    expect(all('\\w+', 'héllo', engine)).toEqual(['h', 'llo']);
    expect(all('\\bl\\w*', 'héllo', engine)).toEqual(['llo']);
    expect(compile('x\\d', engine).test('x\u0663')).toBe(false);
  });

  it('takes the leftmost match, preferring the first alternative', () => {
    expect(all('a|ab', 'ab', engine)).toEqual(['a']);
    expect(all('ab|a', 'ab', engine)).toEqual(['ab']);
    expect(compile('(a+?)(a*)', engine).find('aaa')?.groups).toEqual(['aaa', 'a', 'aa']);
  });

  it('knows Unicode classes \\pL, \\p{Greek} and their negations', () => {
    expect(all('\\pL+', 'héllo wörld 42', engine)).toEqual(['héllo', 'wörld']);
    expect(all('\\p{Greek}+', 'abc αβγ', engine)).toEqual(['αβγ']);
    expect(all('\\PL+', 'ab12cd', engine)).toEqual(['12']);
    expect(all('\\p{^Greek}+', 'αab', engine)).toEqual(['ab']);
  });

  it('folds case as Go does: k with the Kelvin sign, s with the long s', () => {
    expect(compile('(?i)k', engine).test('\u212a')).toBe(true);
    expect(compile('(?i)\u212a', engine).test('k')).toBe(true);
    expect(compile('(?i)s', engine).test('\u017f')).toBe(true);
    expect(compile('ks', { ...engine, caseInsensitive: true }).test('\u212a\u017f')).toBe(true);
    // Through the search for a literal prefix too.
    expect(all('(?i)stable tag', 'x \u017ftable TAG', engine)).toEqual(['\u017ftable TAG']);
    expect(all('(?i)kelvin', '\u212aelvin', engine)).toEqual(['\u212aelvin']);
    expect(compile('s', engine).test('\u017f')).toBe(false);
  });

  it('reads each byte of invalid UTF-8 as U+FFFD, one byte wide, and gives back the bytes', () => {
    const text = `a${BYTE_FF}b`;
    expect(compile('a.b', engine).find(text)?.groups[0]).toBe(text);
    expect(compile('a[^x]b', engine).test(text)).toBe(true);
    expect(compile('a\\x{FFFD}b', engine).test(text)).toBe(true);
    // One character, not the three bytes of U+FFFD.
    expect(compile('a..b', engine).test(text)).toBe(false);
    const dots = compile('.', engine).findAll(`${BYTE_FF}\udcfeé`);
    expect(dots.map((m) => m.groups[0])).toEqual([BYTE_FF, '\udcfe', 'é']);
    expect(spans(dots)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  it('steps over an empty match by one character, however many bytes it takes', () => {
    const matches = compile('x*', engine).findAll('éx😀');
    expect(matches.map((m) => m.groups[0])).toEqual(['', 'x', '']);
    expect(spans(matches)).toEqual([
      [0, 0],
      [1, 2],
      [4, 4],
    ]);
    expect(all('', `${BYTE_FF}😀`, engine)).toEqual(['', '', '']);
  });

  it('gives match and group offsets in the string, after non-ASCII text', () => {
    const match = compile('(a)(x)?(b)', engine).find('é😀zab');
    expect(match).toEqual({ start: 4, end: 6, groups: ['ab', 'a', undefined, 'b'] });
    expect(spans(compile('(?i)ü', engine).findAll('ÜüxÜ'))).toEqual([
      [0, 1],
      [1, 2],
      [3, 4],
    ]);
  });

  it('tries \\B between characters only, never between the bytes of one', () => {
    expect(compile('\\B', engine).test('a😀b')).toBe(false);
    expect(spans(compile('\\B', engine).findAll('-é'))).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });

  it('sees the text before where the next search starts, as \\b and ^ need', () => {
    expect(spans(compile('\\bx', engine).findAll('xx x'))).toEqual([
      [0, 1],
      [3, 4],
    ]);
    expect(all('^a', 'aaa', engine)).toEqual(['a']);
  });

  it('finds (a+)+$ absent on 30 a’s and a ! at once', () => {
    const started = performance.now();
    expect(compile('(a+)+$', engine).test(`${'a'.repeat(30)}!`)).toBe(false);
    expect(compile('(a+)+$', engine).findAll(`${'a'.repeat(30)}!`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('rememberBytes', () => {
  // Only RE2 reads bytes; a pattern V8 runs reads the text itself.
  const onRe2: CompileOptions = { engines: 're2' };

  it('makes regexes over a long text match the bytes it was decoded from, without encoding it again', () => {
    const bytes = Buffer.from(`${'é'.repeat(3000)} version 1.2`, 'utf8');
    const text = bytes.toString('utf8');
    rememberBytes(text, bytes);
    // Changed behind the text's back: only a regex reading these very bytes sees it.
    bytes.write('m', bytes.length - 5, 'latin1');
    expect(compile('version', onRe2).test(text)).toBe(false);
    expect(compile('versiom ([0-9.]+)', onRe2).find(text)).toEqual({
      start: 3001,
      end: 3012,
      groups: [text.slice(3001), '1.2'],
    });
  });

  it('leaves texts with escaped bytes to be encoded, so they are read as Go reads invalid UTF-8', () => {
    const bytes = Buffer.from(`${'a'.repeat(3000)}\xff`, 'latin1');
    const text = `${'a'.repeat(3000)}${BYTE_FF}`;
    rememberBytes(text, bytes);
    expect(compile('a\\x{FFFD}$', onRe2).test(text)).toBe(true);
  });
});
