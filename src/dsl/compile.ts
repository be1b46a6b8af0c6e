/**
 * Turns a syntax tree into a tree of closures, checked once: function names and argument counts,
 * literal regular expressions. Evaluating runs the closures against a scope; nothing is re-parsed and
 * no literal regex is recompiled per evaluation.
 *
 * Semantics follow govaluate: numbers are float64; `+` concatenates when either side is a string
 * (formatting the other with Go's `%v`), otherwise adds numbers; comparisons take two numbers or two
 * strings; `&&`/`||` take booleans and short-circuit; `==` is Go's deep equality (so `"200" == 200` is
 * false); bitwise operators work on int64 (shifts on uint64).
 */
import { GoRegex, RegexSyntaxError } from '../regex/index.js';
import { bytesToText, isWellFormed, textToBytes } from './bytes.js';
import { DslEvaluationError, DslSyntaxError, unknownVariable } from './errors.js';
import {
  type CallContext,
  cachedRegex,
  findFunction,
  functionNames,
  type HelperFunction,
  unsupportedNucleiFunction,
} from './functions/index.js';
import { toInt64 } from './functions/numbers.js';
import { compareGoStrings } from './go-strings.js';
import { closestName } from './names.js';
import type { BinaryOperator, Node, UnaryOperator } from './parser.js';
import { ParseError, parse } from './parser.js';
import { compileEmbeddedTemplate, type EmbeddedTemplate } from './template.js';
import {
  type DslValue,
  deepEqual,
  describeType,
  formatInteger,
  isList,
  toGoDisplay,
  type VariableScope,
} from './value.js';

export type Evaluator = (scope: VariableScope) => DslValue;

export interface CompiledExpression {
  readonly source: string;
  /** Free variable names the expression reads (for "unresolved variable" checks). */
  readonly variables: readonly string[];
  /** Throws DslEvaluationError on a runtime error (unknown variable, bad argument, …). */
  evaluate(scope: VariableScope): DslValue;
}

/**
 * How strict compilation is. In `expression` mode (dsl matchers, `{{…}}` known to be expressions) every
 * problem is an error. In `template` mode a `{{…}}` that is not an expression at all is plain text
 * (`{{constructor.constructor('x')()}}` in an XSS payload), while a near-miss of the language — a typo
 * of a helper's name, a wrong argument count, a bad literal regex — is still reported.
 */
export type CompileMode = 'expression' | 'template';

export interface Program {
  readonly run: Evaluator;
  readonly variables: readonly string[];
  /** True when the expression reads no variable and calls no function (`7*7`, `"a" + "b"`). */
  readonly literalOnly: boolean;
}

/** Returned in template mode for text that is not an expression of the language. */
export const NOT_AN_EXPRESSION = Symbol('not an expression');

export function compileExpression(source: string): CompiledExpression | DslSyntaxError {
  const program = compileProgram(source, 'expression');
  if (program instanceof DslSyntaxError) return program;
  if (program === NOT_AN_EXPRESSION) return new DslSyntaxError(source, 0, 'not an expression');
  return expressionOf(source, program);
}

function expressionOf(source: string, program: Program): CompiledExpression {
  const run = program.run;
  return {
    source,
    variables: program.variables,
    evaluate(scope: VariableScope): DslValue {
      try {
        return run(scope);
      } catch (error) {
        throw asEvaluationError(error);
      }
    },
  };
}

export function asEvaluationError(error: unknown): DslEvaluationError {
  if (error instanceof DslEvaluationError) return error;
  if (error instanceof RangeError) {
    return new DslEvaluationError(`the result is too large (${error.message})`, 'limit');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DslEvaluationError(`internal error: ${message}`, 'internal');
}

export function compileProgram(
  source: string,
  mode: CompileMode,
): Program | DslSyntaxError | typeof NOT_AN_EXPRESSION {
  if (source.trim() === '') {
    return mode === 'template' ? NOT_AN_EXPRESSION : new DslSyntaxError(source, 0, 'empty expression');
  }
  const tree = parse(source);
  if (tree instanceof ParseError) {
    return mode === 'template' ? NOT_AN_EXPRESSION : new DslSyntaxError(source, tree.offset, tree.message);
  }
  const compiler = new Compiler(source, mode);
  try {
    const compiled = compiler.node(tree);
    return { run: compiled.run, variables: [...compiler.variables], literalOnly: compiler.literalOnly };
  } catch (error) {
    if (error instanceof DslSyntaxError) return error;
    if (error === NOT_AN_EXPRESSION) return NOT_AN_EXPRESSION;
    throw error;
  }
}

interface Compiled {
  readonly run: Evaluator;
  /** The value is a Go integer (an `int` returned by a helper): `%v` prints it without an exponent. */
  readonly integer: boolean;
  /** The constant value of a literal node. */
  readonly constant?: DslValue;
}

class Compiler {
  readonly variables = new Set<string>();
  literalOnly = true;

  constructor(
    private readonly source: string,
    private readonly mode: CompileMode,
  ) {}

  node(node: Node): Compiled {
    switch (node.type) {
      case 'literal':
        return typeof node.value === 'string'
          ? this.stringLiteral(node.value, node.start)
          : constant(node.value);
      case 'variable':
        return this.variable(node.name);
      case 'list':
        return this.list(node.items);
      case 'call':
        return this.call(node);
      case 'unary':
        return this.unary(node.operator, this.node(node.operand));
      case 'binary':
        return this.binary(node.operator, node.left, node.right);
    }
  }

  private fail(offset: number, message: string, suggestion?: string, unsupportedFunction?: string): never {
    throw new DslSyntaxError(this.source, offset, message, suggestion, unsupportedFunction);
  }

  private stringLiteral(text: string, start: number): Compiled {
    if (!text.includes('{{') && !text.includes('§')) return constant(text);
    const embedded = compileEmbeddedTemplate(text);
    if (embedded instanceof DslSyntaxError) {
      this.fail(
        start,
        `in the placeholder of this string: ${embedded.message}`,
        embedded.suggestion,
        embedded.unsupportedFunction,
      );
    }
    if (embedded === undefined) return constant(text);
    return this.embedded(embedded);
  }

  private embedded(template: EmbeddedTemplate): Compiled {
    for (const name of template.variables) this.variables.add(name);
    this.literalOnly = false;
    return { run: (scope) => template.render(scope), integer: false };
  }

  private variable(name: string): Compiled {
    this.variables.add(name);
    this.literalOnly = false;
    return {
      run: (scope) => {
        const value = scope.get(name);
        if (value === undefined) throw unknownVariable(name);
        return value;
      },
      integer: false,
    };
  }

  private list(items: readonly Node[]): Compiled {
    const runs = items.map((item) => this.node(item).run);
    return { run: (scope) => runs.map((run) => run(scope)), integer: false };
  }

  private call(node: Extract<Node, { type: 'call' }>): Compiled {
    const helper = findFunction(node.name);
    if (helper === undefined) return this.unknownFunction(node);
    this.literalOnly = false;
    const count = node.args.length;
    if (count < helper.minArgs || count > helper.maxArgs) {
      this.fail(node.start, `${node.name}() takes ${describeArity(helper)}, not ${count}`);
    }
    const args = node.args.map((arg) => this.node(arg));
    const context = this.callContext(helper, node.args, args);
    const runs = args.map((arg) => arg.run);
    const call = helper.call;
    return {
      run: (scope) => {
        const values = new Array<DslValue>(runs.length);
        for (let i = 0; i < runs.length; i++) values[i] = (runs[i] as Evaluator)(scope);
        return call(values, context);
      },
      integer: helper.integer === true,
    };
  }

  private unknownFunction(node: Extract<Node, { type: 'call' }>): never {
    const unsupported = unsupportedNucleiFunction(node.name);
    if (unsupported !== undefined) {
      this.fail(
        node.start,
        `the helper function "${unsupported.name}" is not supported: ${unsupported.reason}`,
        undefined,
        unsupported.name,
      );
    }
    const suggestion = closestName(node.name, functionNames);
    if (this.mode === 'template' && suggestion === undefined) throw NOT_AN_EXPRESSION;
    const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
    this.fail(node.start, `unknown function "${node.name}"${hint}`, suggestion);
  }

  /** Regex arguments given as literals are compiled now, once, and errors reported at compile time. */
  private callContext(
    helper: HelperFunction,
    nodes: readonly Node[],
    args: readonly Compiled[],
  ): CallContext {
    const precompiled = new Map<string, GoRegex>();
    for (const index of helper.regexArgs ?? []) {
      const pattern = args[index]?.constant;
      if (typeof pattern !== 'string') continue;
      const compiled = GoRegex.compile(pattern);
      if (compiled instanceof RegexSyntaxError) {
        this.fail((nodes[index] as Node).start, `${helper.name}(): ${compiled.message}`);
      }
      precompiled.set(pattern, compiled);
    }
    return {
      regex(pattern: string, functionName: string): GoRegex {
        return precompiled.get(pattern) ?? cachedOrThrow(pattern, functionName);
      },
    };
  }

  private unary(operator: UnaryOperator, operand: Compiled): Compiled {
    const run = operand.run;
    switch (operator) {
      case '-':
        return numeric((scope) => -expectNumber(run(scope), '-'));
      case '!':
        return numeric((scope) => !expectBool(run(scope), '!'));
      case '~':
        return numeric((scope) => Number(~toInt64(expectNumber(run(scope), '~'))));
    }
  }

  private binary(operator: BinaryOperator, leftNode: Node, rightNode: Node): Compiled {
    const left = this.node(leftNode);
    if ((operator === '=~' || operator === '!~') && rightNode.type === 'literal') {
      return this.regexMatch(operator, left, rightNode);
    }
    const right = this.node(rightNode);
    return { run: binaryRun(operator, left, right), integer: false };
  }

  private regexMatch(
    operator: '=~' | '!~',
    left: Compiled,
    pattern: Extract<Node, { type: 'literal' }>,
  ): Compiled {
    if (typeof pattern.value !== 'string') {
      this.fail(pattern.start, `the right side of "${operator}" must be a string (a regular expression)`);
    }
    const regex = GoRegex.compile(pattern.value);
    if (regex instanceof RegexSyntaxError) this.fail(pattern.start, regex.message);
    const negate = operator === '!~';
    const run = left.run;
    return {
      run: (scope) => regex.test(expectString(run(scope), operator)) !== negate,
      integer: false,
    };
  }
}

function constant(value: DslValue): Compiled {
  return { run: () => value, integer: false, constant: value };
}

function numeric(run: Evaluator): Compiled {
  return { run, integer: false };
}

function describeArity(helper: HelperFunction): string {
  const plural = (n: number): string => `${n} argument${n === 1 ? '' : 's'}`;
  if (helper.minArgs === helper.maxArgs) return plural(helper.minArgs);
  if (helper.maxArgs === Number.POSITIVE_INFINITY) return `at least ${plural(helper.minArgs)}`;
  return `${helper.minArgs} to ${plural(helper.maxArgs)}`;
}

/** A regex that only exists at evaluation time; its text may come from a response, so errors omit it. */
function cachedOrThrow(pattern: string, functionName: string): GoRegex {
  const compiled = cachedRegex(pattern);
  if (compiled instanceof RegexSyntaxError) {
    throw new DslEvaluationError(
      `${functionName}: the pattern is not a valid RE2 regular expression`,
      'argument',
    );
  }
  return compiled;
}

function typeError(value: DslValue, operator: string, expected: string): DslEvaluationError {
  return new DslEvaluationError(
    `cannot use ${describeType(value)} with the operator "${operator}" (it needs ${expected})`,
    'type',
  );
}

function expectNumber(value: DslValue, operator: string): number {
  if (typeof value !== 'number') throw typeError(value, operator, 'numbers');
  return value;
}

function expectBool(value: DslValue, operator: string): boolean {
  if (typeof value !== 'boolean') throw typeError(value, operator, 'booleans');
  return value;
}

function expectString(value: DslValue, operator: string): string {
  if (typeof value !== 'string') throw typeError(value, operator, 'a string');
  return value;
}

function display(value: DslValue, integer: boolean): string {
  return integer && typeof value === 'number' ? formatInteger(value) : toGoDisplay(value);
}

function binaryRun(operator: BinaryOperator, left: Compiled, right: Compiled): Evaluator {
  const l = left.run;
  const r = right.run;
  switch (operator) {
    case '&&':
      return (scope) => {
        const a = l(scope);
        if (a === false) return false;
        const b = r(scope);
        return expectBool(a, '&&') && expectBool(b, '&&');
      };
    case '||':
      return (scope) => {
        const a = l(scope);
        if (a === true) return true;
        const b = r(scope);
        return expectBool(a, '||') || expectBool(b, '||');
      };
    case '?':
      return (scope) => {
        const condition = l(scope);
        if (condition === false) return null;
        const value = r(scope);
        expectBool(condition, '?');
        return value;
      };
    case ':':
    case '??':
      return (scope) => {
        const value = l(scope);
        return value !== null ? value : r(scope);
      };
    case '==':
      return (scope) => deepEqual(l(scope), r(scope));
    case '!=':
      return (scope) => !deepEqual(l(scope), r(scope));
    case '<':
      return (scope) => compare(l(scope), r(scope), operator) < 0;
    case '<=':
      return (scope) => compare(l(scope), r(scope), operator) <= 0;
    case '>':
      return (scope) => compare(l(scope), r(scope), operator) > 0;
    case '>=':
      return (scope) => compare(l(scope), r(scope), operator) >= 0;
    case '=~':
    case '!~': {
      const negate = operator === '!~';
      return (scope) => {
        const text = expectString(l(scope), operator);
        const pattern = expectString(r(scope), operator);
        return cachedOrThrow(pattern, operator).test(text) !== negate;
      };
    }
    case 'in':
      return (scope) => {
        const needle = l(scope);
        const haystack = r(scope);
        const items = isList(haystack) ? haystack : [haystack];
        return items.some((item) => deepEqual(needle, item));
      };
    case '+':
      return (scope) => add(l(scope), r(scope), left.integer, right.integer);
    case '-':
      return (scope) => expectNumber(l(scope), '-') - expectNumber(r(scope), '-');
    case '*':
      return (scope) => expectNumber(l(scope), '*') * expectNumber(r(scope), '*');
    case '/':
      return (scope) => expectNumber(l(scope), '/') / expectNumber(r(scope), '/');
    case '%':
      return (scope) => expectNumber(l(scope), '%') % expectNumber(r(scope), '%');
    case '**':
      return (scope) => goPow(expectNumber(l(scope), '**'), expectNumber(r(scope), '**'));
    case '&':
      return (scope) =>
        Number(
          BigInt.asIntN(64, toInt64(expectNumber(l(scope), '&')) & toInt64(expectNumber(r(scope), '&'))),
        );
    case '|':
      return (scope) =>
        Number(
          BigInt.asIntN(64, toInt64(expectNumber(l(scope), '|')) | toInt64(expectNumber(r(scope), '|'))),
        );
    case '^':
      return (scope) =>
        Number(
          BigInt.asIntN(64, toInt64(expectNumber(l(scope), '^')) ^ toInt64(expectNumber(r(scope), '^'))),
        );
    case '<<':
      return (scope) => shift(expectNumber(l(scope), '<<'), expectNumber(r(scope), '<<'), 'left');
    case '>>':
      return (scope) => shift(expectNumber(l(scope), '>>'), expectNumber(r(scope), '>>'), 'right');
  }
}

function add(a: DslValue, b: DslValue, aInteger: boolean, bInteger: boolean): DslValue {
  if (typeof a === 'string' || typeof b === 'string') {
    const text = display(a, aInteger) + display(b, bInteger);
    // Joining two halves of a multi-byte sequence must give the same text as the whole sequence.
    return isWellFormed(text) ? text : bytesToText(textToBytes(text));
  }
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  throw typeError(typeof a === 'number' ? b : a, '+', 'numbers or a string');
}

function compare(a: DslValue, b: DslValue, operator: string): number {
  if (typeof a === 'number' && typeof b === 'number')
    return a < b ? -1 : a > b ? 1 : a === b ? 0 : Number.NaN;
  if (typeof a === 'string' && typeof b === 'string') return compareGoStrings(a, b);
  throw typeError(
    typeof a === 'number' || typeof a === 'string' ? b : a,
    operator,
    'two numbers or two strings',
  );
}

/** Go's math.Pow differs from `**` where JavaScript follows IEEE-754's NaN rules. */
function goPow(base: number, exponent: number): number {
  if (base === 1) return 1;
  if (base === -1 && (exponent === Number.POSITIVE_INFINITY || exponent === Number.NEGATIVE_INFINITY))
    return 1;
  return base ** exponent;
}

function toUint64(value: number): bigint {
  if (!Number.isFinite(value)) return 2n ** 63n;
  return BigInt.asUintN(64, BigInt(Math.trunc(value)));
}

function shift(value: number, count: number, direction: 'left' | 'right'): number {
  const bits = toUint64(count);
  if (bits >= 64n) return 0;
  const base = toUint64(value);
  return Number(direction === 'left' ? BigInt.asUintN(64, base << bits) : base >> bits);
}

export type { EmbeddedTemplate };
