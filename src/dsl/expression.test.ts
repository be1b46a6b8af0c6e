import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from './index.js';
import { compiled, evaluate, scopeOf, syntaxError } from './testing/evaluate.js';

function evaluationError(
  source: string,
  variables: Record<string, never> | Parameters<typeof evaluate>[1] = {},
) {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('literals', () => {
  it('reads decimal, fractional and hexadecimal numbers as float64', () => {
    expect(evaluate('42')).toBe(42);
    expect(evaluate('1.5')).toBe(1.5);
    expect(evaluate('.5')).toBe(0.5);
    expect(evaluate('0x1f')).toBe(31);
  });

  it('reads single- and double-quoted strings', () => {
    expect(evaluate('"double"')).toBe('double');
    expect(evaluate("'single'")).toBe('single');
  });

  it('makes the character after a backslash literal, as govaluate does (no \\n escapes)', () => {
    expect(evaluate('"say \\"hi\\""')).toBe('say "hi"');
    expect(evaluate("'it\\'s'")).toBe("it's");
    expect(evaluate('"a\\\\b"')).toBe('a\\b');
    expect(evaluate('"\\d+"')).toBe('d+');
    expect(evaluate('"\\n"')).toBe('n');
  });

  it('keeps the other quote inside a string', () => {
    expect(evaluate(`"it's"`)).toBe("it's");
    expect(evaluate(`'say "x"'`)).toBe('say "x"');
  });

  it('reads true and false', () => {
    expect(evaluate('true')).toBe(true);
    expect(evaluate('false')).toBe(false);
  });
});

describe('variables', () => {
  it('reads nuclei response variables and indexed history variables', () => {
    const variables = { status_code: 200, status_code_2: 302, body_1: 'a', content_type: 'text/html' };
    expect(evaluate('status_code_2 == 302 && body_1 == "a"', variables)).toBe(true);
    expect(evaluate('content_type', variables)).toBe('text/html');
  });

  it('lists the free variables an expression reads, once each', () => {
    expect(compiled('contains(body, "x") && status_code == 200 && len(body) > 0').variables).toEqual([
      'body',
      'status_code',
    ]);
  });

  it('reads a name with characters an identifier cannot hold in brackets, as govaluate does', () => {
    expect(evaluate('[wp-admin-cookie] + "!"', { 'wp-admin-cookie': 'c' })).toBe('c!');
  });

  it('reads an unbracketed hyphenated name as a subtraction, as govaluate does', () => {
    expect(compiled('wp-admin').variables).toEqual(['wp', 'admin']);
    expect(evaluate('a-b', { a: 5, b: 3 })).toBe(2);
  });

  it('throws an unknown-variable error naming a variable the scope does not hold', () => {
    const error = evaluationError('missing == 1');
    expect(error.kind).toBe('unknown-variable');
    expect(error.variable).toBe('missing');
    expect(error.message).toContain('missing');
  });

  it('treats a variable holding null as present', () => {
    expect(evaluate('value ?? "default"', { value: null })).toBe('default');
  });
});

describe('arithmetic', () => {
  it('adds, subtracts, multiplies, divides and takes remainders of numbers', () => {
    expect(evaluate('1 + 2')).toBe(3);
    expect(evaluate('5 - 7')).toBe(-2);
    expect(evaluate('6 * 7')).toBe(42);
    expect(evaluate('7 / 2')).toBe(3.5);
    expect(evaluate('7 % 3')).toBe(1);
    expect(evaluate('-7 % 3')).toBe(-1);
    expect(evaluate('5.5 % 2')).toBe(1.5);
  });

  it('divides by zero into infinities and NaN like float64 instead of failing', () => {
    expect(evaluate('1 / 0')).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(evaluate('0 / 0'))).toBe(true);
    expect(Number.isNaN(evaluate('1 % 0'))).toBe(true);
  });

  it('raises to a power with Go math.Pow special cases', () => {
    expect(evaluate('2 ** 10')).toBe(1024);
    expect(evaluate('1 ** (0 / 0)')).toBe(1);
  });

  it('gives multiplication precedence over addition and ** over both', () => {
    expect(evaluate('1 + 2 * 3')).toBe(7);
    expect(evaluate('2 * 3 ** 2')).toBe(18);
    expect(evaluate('(1 + 2) * 3')).toBe(9);
  });

  it('associates same-precedence operators to the left, ** included (govaluate reorders them)', () => {
    expect(evaluate('10 - 4 - 3')).toBe(3);
    expect(evaluate('16 / 4 / 2')).toBe(2);
    expect(evaluate('2 ** 3 ** 2')).toBe(64);
  });

  it('binds a prefix minus tighter than **, as govaluate does', () => {
    expect(evaluate('-2 ** 2')).toBe(4);
    expect(evaluate('-(2 ** 2)')).toBe(-4);
    expect(evaluate('3 - -2')).toBe(5);
  });

  it('refuses arithmetic on strings except +', () => {
    const error = evaluationError('"5" - 1');
    expect(error.kind).toBe('type');
    expect(error.message).toContain('"-"');
  });
});

describe('string concatenation', () => {
  it('concatenates when either side is a string', () => {
    expect(evaluate('"a" + "b"')).toBe('ab');
    expect(evaluate('username + ":" + password', { username: 'admin', password: 'pw' })).toBe('admin:pw');
  });

  it("formats numbers with Go's %v, which switches to an exponent from a million on", () => {
    expect(evaluate('"id=" + 200')).toBe('id=200');
    expect(evaluate('"id=" + 1.5')).toBe('id=1.5');
    expect(evaluate('"id=" + 123456')).toBe('id=123456');
    expect(evaluate('"id=" + 1000000')).toBe('id=1e+06');
    expect(evaluate('"id=" + 123456789')).toBe('id=1.23456789e+08');
    expect(evaluate('"id=" + 0.00001')).toBe('id=1e-05');
    expect(evaluate('"id=" + 0.0001')).toBe('id=0.0001');
  });

  it('prints the integers Go helpers return without an exponent', () => {
    expect(evaluate('"n=" + count(text, "a")', { text: 'a'.repeat(3) })).toBe('n=3');
    expect(evaluate('"t=" + to_unix_time("2022-01-13T16:30:10Z")')).toBe('t=1642091410');
    expect(evaluate('"t=" + unix_time()')).toMatch(/^t=\d\.\d+e\+09$/);
  });

  it('formats booleans and null as Go does', () => {
    expect(evaluate('"x" + true')).toBe('xtrue');
    expect(evaluate('"x" + value', { value: null })).toBe('x<nil>');
  });

  it('refuses to add a boolean to a number', () => {
    expect(evaluationError('true + 1').kind).toBe('type');
  });
});

describe('comparison', () => {
  it('compares numbers', () => {
    expect(evaluate('status_code == 200', { status_code: 200 })).toBe(true);
    expect(evaluate('duration_2 >= 5', { duration_2: 5.2 })).toBe(true);
    expect(evaluate('1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4')).toBe(false);
    expect(evaluate('1 != 2')).toBe(true);
  });

  it('compares strings byte-wise', () => {
    expect(evaluate('"abc" < "abd"')).toBe(true);
    expect(evaluate('"B" < "a"')).toBe(true);
    expect(evaluate('"\uffff" < "\u{1f600}"')).toBe(true);
  });

  it('never equates a string with a number (Go deep equality)', () => {
    expect(evaluate('"200" == 200')).toBe(false);
    expect(evaluate('"200" != 200')).toBe(true);
  });

  it('refuses to order a string against a number', () => {
    const error = evaluationError('"10" > 5');
    expect(error.kind).toBe('type');
  });

  it('compares lists element by element', () => {
    expect(evaluate('(1, "a") == (1, "a")')).toBe(true);
    expect(evaluate('(1, "a") == (1, "b")')).toBe(false);
  });
});

describe('logic', () => {
  it('combines booleans', () => {
    expect(evaluate('true && false')).toBe(false);
    expect(evaluate('true || false')).toBe(true);
    expect(evaluate('!false')).toBe(true);
    expect(evaluate('!contains("abc", "z")')).toBe(true);
  });

  it('binds && tighter than ||', () => {
    expect(evaluate('true || false && false')).toBe(true);
    expect(evaluate('(true || false) && false')).toBe(false);
  });

  it('short-circuits: the right side is not evaluated when the left decides', () => {
    expect(evaluate('false && missing')).toBe(false);
    expect(evaluate('true || missing')).toBe(true);
    expect(evaluationError('true && missing').kind).toBe('unknown-variable');
  });

  it('refuses non-boolean operands', () => {
    expect(evaluationError('1 && true').kind).toBe('type');
    expect(evaluationError('false || "x"').kind).toBe('type');
    expect(evaluationError('!1').kind).toBe('type');
  });
});

describe('ternary and null coalescing', () => {
  it('chooses a branch', () => {
    expect(evaluate('status_code == 200 ? "ok" : "ko"', { status_code: 200 })).toBe('ok');
    expect(evaluate('status_code == 200 ? "ok" : "ko"', { status_code: 500 })).toBe('ko');
  });

  it('does not evaluate the branch it does not choose', () => {
    expect(evaluate('false ? missing : "b"')).toBe('b');
    expect(evaluate('true ? "a" : missing')).toBe('a');
  });

  it('yields null from a ? without :, as govaluate does', () => {
    expect(evaluate('false ? "a"')).toBe(null);
  });

  it('replaces null with ??', () => {
    expect(evaluate('value ?? "fallback"', { value: null })).toBe('fallback');
    expect(evaluate('value ?? "fallback"', { value: 'set' })).toBe('set');
  });

  it('requires a boolean condition', () => {
    expect(evaluationError('1 ? "a" : "b"').kind).toBe('type');
  });
});

describe('regular expression operators', () => {
  it('matches with =~ and !~ using Go RE2 syntax', () => {
    expect(evaluate('server =~ "(?i)^nginx/1\\\\.2[0-9]"', { server: 'NGINX/1.25' })).toBe(true);
    expect(evaluate('server !~ "apache"', { server: 'nginx' })).toBe(true);
    expect(evaluate('text =~ "[[:alpha:]]+"', { text: 'abc' })).toBe(true);
  });

  it('compiles a regex held in a variable at evaluation time', () => {
    expect(evaluate('text =~ pattern', { text: 'abc', pattern: 'b+' })).toBe(true);
    expect(evaluationError('text =~ pattern', { text: 'abc', pattern: '(' }).kind).toBe('argument');
  });

  it('reports an invalid literal regex when compiling', () => {
    expect(syntaxError('body =~ "("').message).toContain('invalid regular expression');
  });

  it('requires a string on the left', () => {
    expect(evaluationError('1 =~ "1"').kind).toBe('type');
  });
});

describe('bitwise operators', () => {
  it('works on int64', () => {
    expect(evaluate('6 & 3')).toBe(2);
    expect(evaluate('6 | 3')).toBe(7);
    expect(evaluate('6 ^ 3')).toBe(5);
    expect(evaluate('~5')).toBe(-6);
    expect(evaluate('1 << 10')).toBe(1024);
    expect(evaluate('1024 >> 3')).toBe(128);
    expect(evaluate('7.9 & 3')).toBe(3);
  });

  it('shifts out to zero past 64 bits as Go does', () => {
    expect(evaluate('1 << 64')).toBe(0);
  });

  it('binds bitwise operators between comparison and shifts, as govaluate does', () => {
    expect(evaluate('1 | 2 == 3')).toBe(true);
    expect(evaluate('1 << 2 | 1')).toBe(5);
  });
});

describe('in', () => {
  it('tests membership in a parenthesised list', () => {
    expect(evaluate('status_code in (200, 301, 302)', { status_code: 301 })).toBe(true);
    expect(evaluate('"b" in ("a", "b")')).toBe(true);
    expect(evaluate('"x" IN ("a", "b")')).toBe(false);
    expect(evaluate('1 in ()')).toBe(false);
  });

  it('tests membership in a list held by a variable', () => {
    expect(evaluate('"b" in names', { names: ['a', 'b'] })).toBe(true);
  });
});

describe('syntax errors', () => {
  it('report the offset of the problem', () => {
    const error = syntaxError('status_code == ');
    expect(error.message).toBe('unexpected end of expression');
    expect(error.offset).toBe(15);
  });

  it('report unbalanced parentheses', () => {
    expect(syntaxError('(1 + 2').message).toContain('expected ")"');
    expect(syntaxError('1 + 2)').message).toContain('unbalanced parenthesis');
  });

  it('report an unterminated string', () => {
    expect(syntaxError('contains(body, "abc)').message).toContain('unterminated string');
  });

  it('report a single = with the operator that was probably meant', () => {
    expect(syntaxError('status_code = 200').message).toContain('"=="');
  });

  it('name an unknown function and suggest the closest helper', () => {
    const error = syntaxError('contain(body, "x")');
    expect(error.message).toBe('unknown function "contain" (did you mean "contains"?)');
    expect(error.suggestion).toBe('contains');
  });

  it('name a helper called with the wrong number of arguments', () => {
    expect(syntaxError('md5()').message).toBe('md5() takes 1 argument, not 0');
    expect(syntaxError('contains(body)').message).toBe('contains() takes 2 arguments, not 1');
    expect(syntaxError('starts_with(body)').message).toBe('starts_with() takes at least 2 arguments, not 1');
  });

  it('refuse an empty expression', () => {
    expect(syntaxError('   ').message).toBe('empty expression');
  });

  it('refuse deeply nested input instead of overflowing the stack', () => {
    expect(syntaxError(`${'('.repeat(5000)}1${')'.repeat(5000)}`).message).toContain('nested too deeply');
  });

  it('describe the error with a caret under the offending character', () => {
    expect(syntaxError('a == = 1').describe()).toBe(
      'unexpected "=" (comparison is "==")\n  a == = 1\n       ^',
    );
  });
});

describe('operators without spaces', () => {
  it('are read by maximal munch (govaluate needs spaces around some)', () => {
    expect(evaluate('a==-1&&!b', { a: -1, b: false })).toBe(true);
    expect(evaluate('status_code==200', { status_code: 200 })).toBe(true);
  });
});

describe('compiled expressions', () => {
  it('evaluate many times against different scopes without recompiling', () => {
    const expression = compiled('status_code == 200 && contains(body, "admin")');
    expect(expression.evaluate(scopeOf({ status_code: 200, body: 'admin panel' }))).toBe(true);
    expect(expression.evaluate(scopeOf({ status_code: 404, body: 'admin panel' }))).toBe(false);
    expect(expression.source).toBe('status_code == 200 && contains(body, "admin")');
  });
});

describe('placeholders inside string literals', () => {
  it('are resolved from the scope and listed as variables', () => {
    const expression = compiled('contains(body, "{{string}}")');
    expect(expression.variables).toEqual(['body', 'string']);
    expect(expression.evaluate(scopeOf({ body: 'title x7Gq2', string: 'x7Gq2' }))).toBe(true);
  });

  it('stay as written when unresolved, as nuclei leaves them (a page may contain template syntax)', () => {
    expect(evaluate('contains(body, "{{user.name}}")', { body: '<p>{{user.name}}</p>' })).toBe(true);
  });

  it('keep literal-only text such as SSTI probes', () => {
    expect(evaluate('contains(body, "{{7*7}}")', { body: 'echo {{7*7}}' })).toBe(true);
  });
});

describe('nuclei additions', () => {
  it("getNetworkPort keeps a port unless it is empty or a protocol's usual one", () => {
    expect(evaluate('getNetworkPort(Port, "22")', { Port: '2222' })).toBe('2222');
    expect(evaluate('getNetworkPort(Port, "22")', { Port: '443' })).toBe('22');
    expect(evaluate('getNetworkPort(Port, "22")', { Port: '' })).toBe('22');
  });

  it('duration is a response variable, compared in seconds', () => {
    expect(evaluate('duration >= 5', { duration: 6.02 })).toBe(true);
  });
});
