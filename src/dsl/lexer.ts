/**
 * Tokens of govaluate's expression syntax as nuclei uses it.
 *
 * Follows govaluate's lexer where templates depend on it: numbers are decimal (`1`, `1.5`, `.5`) or hex
 * (`0x1f`), with no exponent; strings are single- or double-quoted and a backslash makes the next
 * character literal (`"\""` is `"`, `"\d"` is `d`: there are no `\n`-style escapes); identifiers are
 * letters, digits, `_` and `.` (`status_code_2`, `content_type`); `[any name]` names a variable with
 * characters an identifier cannot hold (`[wp-admin-cookie]`); `wp-admin-cookie` unbracketed is a
 * subtraction, as in govaluate.
 *
 * Deliberately more permissive than govaluate where it rejects input that has an obvious meaning:
 * operators need no surrounding spaces (`a==-1`, `a&&!b`), identifiers may start with `_`, and a string
 * ends only at the quote that opened it (govaluate ends it at either quote, which makes `"it's"` a
 * syntax error there).
 */

export type TokenKind = 'number' | 'string' | 'identifier' | 'bracketed' | 'operator' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** Operator symbol, identifier name, or the decoded string / bracketed name. */
  readonly text: string;
  readonly value?: number;
  /** Offset of the token's first character in the source. */
  readonly start: number;
  readonly end: number;
}

export class LexError {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** Longest first, so that maximal munch picks `**` over `*` and `<=` over `<`. */
const OPERATORS = [
  '**',
  '==',
  '!=',
  '=~',
  '!~',
  '<=',
  '>=',
  '<<',
  '>>',
  '&&',
  '||',
  '??',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '&',
  '|',
  '^',
  '!',
  '~',
  '?',
  ':',
  ',',
  '(',
  ')',
] as const;

/** Go's unicode.IsSpace. */
export function isGoSpace(char: string): boolean {
  switch (char) {
    case ' ':
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case '\u0085':
    case '\u00a0':
      return true;
    default:
      return char > '\u00ff' && /^[\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(char);
  }
}

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

function isIdentifierStart(char: string): boolean {
  return char === '_' || (char < '\u0080' ? /^[A-Za-z]$/.test(char) : LETTER.test(char));
}

function isIdentifierPart(char: string): boolean {
  if (char < '\u0080') return /^[A-Za-z0-9_.]$/.test(char);
  return LETTER.test(char) || DIGIT.test(char);
}

export function tokenize(source: string): Token[] | LexError {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = codePointAt(source, i);
    if (isGoSpace(char)) {
      i += char.length;
      continue;
    }
    const token = readToken(source, i, char);
    if (token instanceof LexError) return token;
    tokens.push(token);
    i = token.end;
  }
  tokens.push({ kind: 'end', text: '', start: source.length, end: source.length });
  return tokens;
}

function codePointAt(source: string, i: number): string {
  const point = source.codePointAt(i) ?? 0;
  return String.fromCodePoint(point);
}

function readToken(source: string, start: number, char: string): Token | LexError {
  if ((char >= '0' && char <= '9') || (char === '.' && /[0-9]/.test(source[start + 1] ?? ''))) {
    return readNumber(source, start);
  }
  if (char === '"' || char === "'") return readString(source, start, char);
  if (char === '[') return readBracketed(source, start);
  if (isIdentifierStart(char)) return readIdentifier(source, start);
  for (const operator of OPERATORS) {
    if (source.startsWith(operator, start)) {
      return { kind: 'operator', text: operator, start, end: start + operator.length };
    }
  }
  if (char === '=') return new LexError(start, 'unexpected "=" (comparison is "==")');
  return new LexError(start, `unexpected character ${JSON.stringify(char)}`);
}

function readNumber(source: string, start: number): Token | LexError {
  if (source.startsWith('0x', start) || source.startsWith('0X', start)) {
    const match = /^[0-9a-fA-F]+/.exec(source.slice(start + 2));
    if (match === null) return new LexError(start, 'hexadecimal number without digits');
    const end = start + 2 + match[0].length;
    return checkNumberEnd(source, end, {
      kind: 'number',
      text: source.slice(start, end),
      value: Number.parseInt(match[0], 16),
      start,
      end,
    });
  }
  const match = /^[0-9.]+/.exec(source.slice(start)) as RegExpExecArray;
  const text = match[0];
  if (!/^(\d+\.?\d*|\.\d+)$/.test(text)) return new LexError(start, `malformed number "${text}"`);
  const end = start + text.length;
  return checkNumberEnd(source, end, { kind: 'number', text, value: Number(text), start, end });
}

function checkNumberEnd(source: string, end: number, token: Token): Token | LexError {
  const next = source[end];
  if (next !== undefined && isIdentifierPart(codePointAt(source, end))) {
    return new LexError(token.start, `malformed number "${source.slice(token.start, end + 1)}"`);
  }
  return token;
}

function readString(source: string, start: number, quote: string): Token | LexError {
  let text = '';
  let i = start + 1;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === '\\') {
      if (i + 1 >= source.length) break;
      const escaped = codePointAt(source, i + 1);
      text += escaped;
      i += 1 + escaped.length;
      continue;
    }
    if (char === quote) return { kind: 'string', text, start, end: i + 1 };
    text += char;
    i += 1;
  }
  return new LexError(start, 'unterminated string');
}

function readBracketed(source: string, start: number): Token | LexError {
  let name = '';
  let i = start + 1;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === '\\' && i + 1 < source.length) {
      name += source[i + 1];
      i += 2;
      continue;
    }
    if (char === ']') {
      if (name === '') return new LexError(start, 'empty variable name "[]"');
      return { kind: 'bracketed', text: name, start, end: i + 1 };
    }
    name += char;
    i += 1;
  }
  return new LexError(start, 'unterminated variable name (missing "]")');
}

function readIdentifier(source: string, start: number): Token | LexError {
  let i = start;
  while (i < source.length) {
    const char = codePointAt(source, i);
    if (!isIdentifierPart(char)) break;
    i += char.length;
  }
  const text = source.slice(start, i);
  if (text.endsWith('.')) return new LexError(i - 1, `name "${text}" ends with "."`);
  return { kind: 'identifier', text, start, end: i };
}
