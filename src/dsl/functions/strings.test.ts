import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function fails(source: string, variables = {}): DslEvaluationError {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('len', () => {
  it('counts bytes of a string, as Go does', () => {
    expect(evaluate('len("Hello")')).toBe(5);
    expect(evaluate('len("é")')).toBe(2);
    expect(evaluate('len("😀")')).toBe(4);
  });

  it('counts the digits of a number and the items of a list', () => {
    expect(evaluate('len(5555)')).toBe(4);
    expect(evaluate('len(split("a,b,c", ","))')).toBe(3);
  });
});

describe('case mapping', () => {
  it('lowers and uppers text under both spellings', () => {
    expect(evaluate('to_lower("HELLO")')).toBe('hello');
    expect(evaluate('tolower("HeLLo")')).toBe('hello');
    expect(evaluate('to_upper("hello")')).toBe('HELLO');
    expect(evaluate('toupper("hello")')).toBe('HELLO');
  });

  it("maps rune by rune as Go's simple case mapping does", () => {
    expect(evaluate('to_upper("straße")')).toBe('STRAßE');
    expect(evaluate('to_lower("İ")')).toBe('i');
    expect(evaluate('to_lower("ΟΔΟΣ")')).toBe('οδοσ');
    expect(evaluate('to_upper("ﬁx")')).toBe('ﬁX');
  });
});

describe('trimming', () => {
  it('trims a cutset of characters from either or both ends', () => {
    expect(evaluate('trim("aaaHelloddd", "ad")')).toBe('Hello');
    expect(evaluate('trim_left("aaaHelloddd", "ad")')).toBe('Helloddd');
    expect(evaluate('trim_right("aaaHelloddd", "ad")')).toBe('aaaHello');
    expect(evaluate('trim("ééxéé", "é")')).toBe('x');
  });

  it('trims a prefix or a suffix once', () => {
    expect(evaluate('trim_prefix("aaHelloaa", "aa")')).toBe('Helloaa');
    expect(evaluate('trim_suffix("aaHelloaa", "aa")')).toBe('aaHello');
  });

  it("trims Unicode white space as Go's TrimSpace does (not the BOM)", () => {
    expect(evaluate('trim_space("  Hello  ")')).toBe('Hello');
    expect(evaluate('trim_space(text)', { text: '\u00a0\t x \u0085\n' })).toBe('x');
    expect(evaluate('trim_space(text)', { text: '\ufeffx' })).toBe('\ufeffx');
  });
});

describe('replace and replace_regex', () => {
  it('replaces every occurrence', () => {
    expect(evaluate('replace("Hello", "He", "Ha")')).toBe('Hallo');
    expect(evaluate("replace(FQDN, '.', 'a')", { FQDN: 'www.app.test' })).toBe('wwwaappatest');
  });

  it('inserts around every rune when replacing the empty string, as Go does', () => {
    expect(evaluate('replace("ab", "", "-")')).toBe('-a-b-');
  });

  it('replaces regex matches with Go template expansion', () => {
    expect(evaluate('replace_regex("He123llo", "(\\\\d+)", "")')).toBe('Hello');
    expect(evaluate('replace_regex("a1b22", "(\\\\d+)", "<$1>")')).toBe('a<1>b<22>');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Go's ${name} replacement syntax
    expect(evaluate('replace_regex("k=v", "(?P<key>\\\\w)=(?P<val>\\\\w)", "${val}=${key}")')).toBe('v=k');
    expect(evaluate('replace_regex("ab", "a", "$$")')).toBe('$b');
    expect(evaluate('replace_regex("ab", "(a)", "$1x")')).toBe('b');
  });

  it('skips an empty match right after a previous match, as Go does', () => {
    expect(evaluate('replace_regex("abc", "b*", "-")')).toBe('-a-c-');
  });
});

describe('contains family', () => {
  it('tests for a substring', () => {
    expect(evaluate('contains("Hello", "lo")')).toBe(true);
    expect(evaluate('contains("Hello", "xx")')).toBe(false);
  });

  it('converts non-strings to text first', () => {
    expect(evaluate('contains(12345, 234)')).toBe(true);
    expect(evaluate('contains(flag, "ru")', { flag: true })).toBe(true);
  });

  it('requires all or any of several substrings', () => {
    expect(evaluate('contains_all("Hello everyone", "lo", "every")')).toBe(true);
    expect(evaluate('contains_all("Hello everyone", "lo", "nobody")')).toBe(false);
    expect(evaluate('contains_any("Hello everyone", "abc", "llo")')).toBe(true);
    expect(evaluate('contains_any("Hello everyone", "abc", "xyz")')).toBe(false);
  });

  it('tests prefixes and suffixes of the text and of its lines', () => {
    expect(evaluate('starts_with("Hello", "x", "He")')).toBe(true);
    expect(evaluate('ends_with("Hello", "lo")')).toBe(true);
    expect(evaluate('line_starts_with(text, "He")', { text: 'Hi\nHello' })).toBe(true);
    expect(evaluate('line_ends_with(text, "ii")', { text: 'Hii\nHello' })).toBe(true);
    expect(evaluate('line_starts_with(text, "el")', { text: 'Hi\nHello' })).toBe(false);
  });
});

describe('concat, join and split', () => {
  it('concatenates any values as text', () => {
    expect(evaluate('concat("Hello", 123, "world")')).toBe('Hello123world');
    expect(evaluate('concat()')).toBe('');
  });

  it('joins elements or a list with a separator', () => {
    expect(evaluate('join("_", "Hello", 123, "world")')).toBe('Hello_123_world');
    expect(evaluate('join(", ", split(hex_encode("abcdefg"), 2))')).toBe('61, 62, 63, 64, 65, 66, 67');
    expect(fails('join("_", "single")').kind).toBe('argument');
  });

  it('splits on a separator, into a number of parts, or into chunks of runes', () => {
    expect(evaluate('split("ab,cd,efg", ",")')).toEqual(['ab', 'cd', 'efg']);
    expect(evaluate('split("ab,cd,efg", ",", 2)')).toEqual(['ab', 'cd,efg']);
    expect(evaluate('split("ab,cd,efg", ",", "3")')).toEqual(['ab', 'cd', 'efg']);
    expect(evaluate('split("ab,cd,efg", ",", -1)')).toEqual(['ab', 'cd', 'efg']);
    expect(evaluate('split("ab,cd,efg", ",", 1)')).toEqual(['ab,cd,efg']);
    expect(evaluate('split("abcdefg", 2)')).toEqual(['ab', 'cd', 'ef', 'g']);
  });
});

describe('substr and index', () => {
  it('slices by byte offsets, with a negative end counted from the end', () => {
    expect(evaluate("substr('xxtestxxx', 2)")).toBe('testxxx');
    expect(evaluate("substr('xxtestxxx', 2, 6)")).toBe('test');
    expect(evaluate("substr('xxtestxxx', 2, -2)")).toBe('testx');
    expect(evaluate("substr('héllo', 1, 3)")).toBe('é');
  });

  it('fails on offsets outside the string', () => {
    expect(fails("substr('abc', 5)").kind).toBe('argument');
    expect(fails("substr('abc', 2, 1)").kind).toBe('argument');
    expect(fails("substr('', 0)").kind).toBe('argument');
  });

  it('picks a character of a string or an item of a list', () => {
    expect(evaluate('index("abc", 1)')).toBe('b');
    expect(evaluate('index(split("a,b", ","), 1)')).toBe('b');
    expect(fails('index("abc", 3)').kind).toBe('argument');
  });
});

describe('regex', () => {
  it('tests an unanchored Go regular expression', () => {
    expect(evaluate('regex("H([a-z]+)o", "Hello")')).toBe(true);
    expect(
      evaluate("regex('uid=([0-9(a-z)]+) gid=([0-9(a-z)]+)', body)", { body: 'uid=0(root) gid=0(root)' }),
    ).toBe(true);
    expect(evaluate('regex("^x$", "axb")')).toBe(false);
  });

  it('supports RE2 syntax JavaScript lacks', () => {
    expect(evaluate('regex("(?i)ADMIN", "admin")')).toBe(true);
    expect(evaluate('regex("^[[:digit:]]+\\\\z", "123")')).toBe(true);
  });

  it('compiles a pattern held in a variable when evaluating', () => {
    expect(evaluate('regex(pattern, "abc")', { pattern: 'b' })).toBe(true);
    expect(fails('regex(pattern, "abc")', { pattern: '(secret' }).message).toBe(
      'regex: the pattern is not a valid RE2 regular expression',
    );
  });
});

describe('repeat, padding and reverse', () => {
  it('repeats text', () => {
    expect(evaluate('repeat("../", 5)')).toBe('../../../../../');
    expect(evaluate('repeat("a", "5")')).toBe('aaaaa');
    expect(evaluate('repeat(5, 5)')).toBe('55555');
  });

  it('refuses a result beyond the size limit instead of exhausting memory', () => {
    expect(fails('repeat("abc", 1000000000)').kind).toBe('limit');
  });

  it('pads to a length with a prefix or a suffix', () => {
    expect(evaluate("padding('Test', 'A', 8, 'prefix')")).toBe('AAAATest');
    expect(evaluate("padding('Test', 'AB', 7, 'suffix')")).toBe('TestABA');
    expect(evaluate("padding('Test', 'A', 2, 'prefix')")).toBe('Test');
    expect(fails("padding('Test', 'A', 8, 'middle')").kind).toBe('argument');
  });

  it('reverses runes', () => {
    expect(evaluate('reverse("abc")')).toBe('cba');
    expect(evaluate('reverse("héllo")')).toBe('olléh');
  });
});

describe('remove_bad_chars, count, sort and uniq', () => {
  it('removes every occurrence of each character of a cutset', () => {
    expect(evaluate('remove_bad_chars("abcd", "bc")')).toBe('ad');
    expect(evaluate('remove_bad_chars("abba baab", "b")')).toBe('aa aa');
  });

  it('counts occurrences', () => {
    expect(evaluate('count("cheese", "e")')).toBe(3);
    expect(evaluate('count("five", "")')).toBe(5);
  });

  it('sorts the characters of one argument or several arguments', () => {
    expect(evaluate('sort("a1b2c3d4e5")')).toBe('12345abcde');
    expect(evaluate('sort(12453)')).toBe('12345');
    expect(evaluate('sort("b", "a", "2", "c", "3", "1", "d", "4")')).toEqual([
      '1',
      '2',
      '3',
      '4',
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('keeps the first of repeated characters or arguments', () => {
    expect(evaluate('uniq("abcabdaabbccd")')).toBe('abcd');
    expect(evaluate('uniq(123123231)')).toBe('123');
    expect(evaluate('join(" ", uniq("ab", "cd", "12", "34", "12", "cd"))')).toBe('ab cd 12 34');
  });
});
