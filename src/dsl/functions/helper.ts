/**
 * What a helper function is, and the argument conversions nuclei's helpers (projectdiscovery/dsl) apply.
 */
import { GoRegex, type RegexSyntaxError } from '../../regex/index.js';
import { argumentError, DslEvaluationError } from '../errors.js';
import { type DslValue, toText, typeName } from '../value.js';

export interface CallContext {
  /** The compiled form of a regular expression (compiled once per distinct pattern). */
  regex(pattern: string, functionName: string): GoRegex;
}

export interface HelperFunction {
  readonly name: string;
  readonly minArgs: number;
  /** `Infinity` for variadic helpers. */
  readonly maxArgs: number;
  /** Go returns an integer type: govaluate's string `+` prints it without an exponent. */
  readonly integer?: boolean;
  /** Argument positions that hold a regular expression, compiled at compile time when literal. */
  readonly regexArgs?: readonly number[];
  readonly call: (args: readonly DslValue[], context: CallContext) => DslValue;
}

type Signature = Pick<HelperFunction, 'minArgs' | 'maxArgs' | 'integer' | 'regexArgs'>;

/** Declares a helper taking exactly `arity` arguments. */
export function fixed(
  name: string,
  arity: number,
  call: HelperFunction['call'],
  extra: Omit<Signature, 'minArgs' | 'maxArgs'> = {},
): HelperFunction {
  return { name, minArgs: arity, maxArgs: arity, call, ...extra };
}

/** Declares a helper taking between `minArgs` and `maxArgs` arguments. */
export function ranged(
  name: string,
  minArgs: number,
  maxArgs: number,
  call: HelperFunction['call'],
  extra: Omit<Signature, 'minArgs' | 'maxArgs'> = {},
): HelperFunction {
  return { name, minArgs, maxArgs, call, ...extra };
}

/** The dsl library's `toString`: strings as they are, numbers in plain decimal, nil as "". */
export const str = toText;

/** The argument at `index`, which the signature guarantees is present. */
export function arg(args: readonly DslValue[], index: number): DslValue {
  return args[index] as DslValue;
}

export function textArg(args: readonly DslValue[], index: number): string {
  return toText(arg(args, index));
}

/**
 * A numeric argument. Go's helpers assert `float64` here; numeric strings are accepted too, since a
 * value extracted from a response is text.
 */
export function numberArg(functionName: string, args: readonly DslValue[], index: number): number {
  const value = arg(args, index);
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(value)) return Number(value);
  throw argumentError(functionName, `argument ${index + 1} must be a number, not ${describe(value)}`);
}

/** An integer argument as Go's `strconv.Atoi(toString(x))` reads it. */
export function atoiArg(functionName: string, args: readonly DslValue[], index: number): number {
  const text = textArg(args, index);
  if (!/^[-+]?\d+$/.test(text)) {
    throw argumentError(functionName, `argument ${index + 1} must be an integer`);
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw argumentError(functionName, `argument ${index + 1} is out of range`);
  return value;
}

export function describe(value: DslValue): string {
  const name = typeName(value);
  return name === 'null' ? 'null' : `a ${name}`;
}

/** The largest string a helper may build, so that `repeat("a", 1e9)` fails instead of exhausting memory. */
export const MAX_RESULT_LENGTH = 64 * 1024 * 1024;

export function checkResultLength(functionName: string, length: number): void {
  if (length > MAX_RESULT_LENGTH) {
    throw new DslEvaluationError(
      `${functionName}: the result would be longer than ${MAX_RESULT_LENGTH} characters`,
      'limit',
    );
  }
}

const REGEX_CACHE_SIZE = 512;
const regexCache = new Map<string, GoRegex | RegexSyntaxError>();

/** Compiles `pattern` with Go RE2 syntax, remembering the most recent distinct patterns. */
export function cachedRegex(pattern: string): GoRegex | RegexSyntaxError {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) {
    // Refresh its position: a Map iterates in insertion order, so the first key is the least recent.
    regexCache.delete(pattern);
    regexCache.set(pattern, cached);
    return cached;
  }
  const compiled = GoRegex.compile(pattern);
  regexCache.set(pattern, compiled);
  if (regexCache.size > REGEX_CACHE_SIZE) {
    const oldest = regexCache.keys().next().value as string;
    regexCache.delete(oldest);
  }
  return compiled;
}
