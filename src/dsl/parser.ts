/**
 * A Pratt parser for govaluate's grammar, producing a syntax tree.
 *
 * Precedence, lowest first (govaluate's planner): `?` `:` `??` · `||` · `&&` · comparators (`==` `!=`
 * `<` `<=` `>` `>=` `=~` `!~` `in`) · bitwise (`&` `|` `^`) · shifts (`<<` `>>`) · additive (`+` `-`) ·
 * multiplicative (`*` `/` `%`) · `**` · prefixes (`-` `!` `~`, binding to the operand right after them:
 * `-2 ** 2` is 4) · calls, parentheses, literals. Every binary level associates to the left, `**`
 * included (govaluate reorders same-precedence chains that way).
 *
 * The ternary is govaluate's pair of binary operators: `c ? a` yields `a` when `c` is true and null
 * otherwise; `x : b` (like `x ?? b`) yields `x` unless it is null. `c ? a : b` therefore reads
 * `(c ? a) : b`, which behaves as a C ternary whenever `a` is not null.
 */
import { LexError, type Token, tokenize } from './lexer.js';

export type UnaryOperator = '-' | '!' | '~';
export type BinaryOperator =
  | '?'
  | ':'
  | '??'
  | '||'
  | '&&'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '=~'
  | '!~'
  | 'in'
  | '&'
  | '|'
  | '^'
  | '<<'
  | '>>'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '**';

export type Node =
  | { readonly type: 'literal'; readonly value: string | number | boolean; readonly start: number }
  | { readonly type: 'variable'; readonly name: string; readonly start: number }
  | {
      readonly type: 'call';
      readonly name: string;
      readonly args: readonly Node[];
      readonly start: number;
      readonly nameEnd: number;
    }
  | { readonly type: 'list'; readonly items: readonly Node[]; readonly start: number }
  | {
      readonly type: 'unary';
      readonly operator: UnaryOperator;
      readonly operand: Node;
      readonly start: number;
    }
  | {
      readonly type: 'binary';
      readonly operator: BinaryOperator;
      readonly left: Node;
      readonly right: Node;
      readonly start: number;
    };

export class ParseError {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const BINDING_POWER: Readonly<Record<BinaryOperator, number>> = {
  '?': 1,
  ':': 1,
  '??': 1,
  '||': 2,
  '&&': 3,
  '==': 4,
  '!=': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '=~': 4,
  '!~': 4,
  in: 4,
  '&': 5,
  '|': 5,
  '^': 5,
  '<<': 6,
  '>>': 6,
  '+': 7,
  '-': 7,
  '*': 8,
  '/': 8,
  '%': 8,
  '**': 9,
};

/** Deeply nested input (`((((…`) is rejected instead of overflowing the stack. */
const MAX_DEPTH = 200;

export function parse(source: string): Node | ParseError {
  const tokens = tokenize(source);
  if (tokens instanceof LexError) return new ParseError(tokens.offset, tokens.message);
  const parser = new Parser(tokens);
  try {
    const node = parser.expression(0);
    const next = parser.peek();
    if (next.kind !== 'end') throw new ParseError(next.start, unexpected(next));
    return node;
  } catch (error) {
    if (error instanceof ParseError) return error;
    throw error;
  }
}

function unexpected(token: Token): string {
  if (token.kind === 'end') return 'unexpected end of expression';
  if (token.text === ')') return 'unbalanced parenthesis ")"';
  return `unexpected ${describeToken(token)}`;
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case 'string':
      return 'string';
    case 'number':
      return `number ${token.text}`;
    case 'identifier':
    case 'bracketed':
      return `name "${token.text}"`;
    default:
      return `"${token.text}"`;
  }
}

function binaryOperatorOf(token: Token): BinaryOperator | undefined {
  if (token.kind === 'operator' && token.text in BINDING_POWER) return token.text as BinaryOperator;
  if (token.kind === 'identifier' && (token.text === 'in' || token.text === 'IN')) return 'in';
  return undefined;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private expect(text: string): Token {
    const token = this.next();
    if (token.kind !== 'operator' || token.text !== text) {
      throw new ParseError(
        token.start,
        `expected "${text}" but found ${unexpected(token).replace(/^unexpected /, '')}`,
      );
    }
    return token;
  }

  expression(minPower: number): Node {
    this.enter();
    let left = this.prefix();
    for (;;) {
      const operator = binaryOperatorOf(this.peek());
      if (operator === undefined) break;
      const power = BINDING_POWER[operator];
      if (power <= minPower) break;
      this.next();
      const right = this.expression(power);
      left = { type: 'binary', operator, left, right, start: left.start };
    }
    this.depth -= 1;
    return left;
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > MAX_DEPTH) throw new ParseError(this.peek().start, 'expression nested too deeply');
  }

  private prefix(): Node {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { type: 'literal', value: token.value as number, start: token.start };
      case 'string':
        return { type: 'literal', value: token.text, start: token.start };
      case 'bracketed':
        return { type: 'variable', name: token.text, start: token.start };
      case 'identifier':
        return this.identifier(token);
      case 'operator':
        return this.operatorPrefix(token);
      default:
        throw new ParseError(token.start, unexpected(token));
    }
  }

  private identifier(token: Token): Node {
    if (token.text === 'true' || token.text === 'false') {
      return { type: 'literal', value: token.text === 'true', start: token.start };
    }
    if (token.text === 'in' || token.text === 'IN') throw new ParseError(token.start, 'unexpected "in"');
    const after = this.peek();
    if (after.kind === 'operator' && after.text === '(') {
      this.next();
      return {
        type: 'call',
        name: token.text,
        args: this.arguments(),
        start: token.start,
        nameEnd: token.end,
      };
    }
    return { type: 'variable', name: token.text, start: token.start };
  }

  private arguments(): Node[] {
    const args: Node[] = [];
    if (this.peek().kind === 'operator' && this.peek().text === ')') {
      this.next();
      return args;
    }
    for (;;) {
      args.push(this.expression(0));
      const separator = this.next();
      if (separator.kind === 'operator' && separator.text === ')') return args;
      if (separator.kind !== 'operator' || separator.text !== ',') {
        throw new ParseError(
          separator.start,
          `expected "," or ")" but found ${unexpected(separator).replace(/^unexpected /, '')}`,
        );
      }
    }
  }

  private operatorPrefix(token: Token): Node {
    if (token.text === '-' || token.text === '!' || token.text === '~') {
      this.enter();
      const operand = this.prefix();
      this.depth -= 1;
      return { type: 'unary', operator: token.text, operand, start: token.start };
    }
    if (token.text === '(') return this.group(token);
    throw new ParseError(token.start, unexpected(token));
  }

  /** `(expr)` or a list `(a, b, c)`; `()` is the empty list (as the right side of `in`). */
  private group(open: Token): Node {
    if (this.peek().kind === 'operator' && this.peek().text === ')') {
      this.next();
      return { type: 'list', items: [], start: open.start };
    }
    const first = this.expression(0);
    const items = [first];
    while (this.peek().kind === 'operator' && this.peek().text === ',') {
      this.next();
      items.push(this.expression(0));
    }
    this.expect(')');
    return items.length === 1 ? first : { type: 'list', items, start: open.start };
  }
}
