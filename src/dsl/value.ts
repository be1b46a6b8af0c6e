/**
 * Values of the expression language and their conversions to text, as nuclei performs them.
 *
 * Numbers are float64 as in govaluate. Go formats a float in two ways that matter here:
 * - `types.ToString` / the DSL's `toString` (request rendering, helper arguments): `strconv.FormatFloat(f,
 *   'f', -1, 64)`, plain decimal digits, never an exponent (see {@link toText});
 * - `fmt.Sprintf("%v")` (govaluate's string `+`, `mmh3`, list elements): `%g` with the shortest
 *   representation, which switches to an exponent from 1e+06 on (see {@link toGoDisplay}).
 */

export type DslValue = string | number | boolean | null | readonly DslValue[];

/** Variables visible to an expression; a name that is absent is "unresolved". */
export type VariableScope = ReadonlyMap<string, DslValue>;

export type DslTypeName = 'string' | 'number' | 'bool' | 'null' | 'list';

export function typeName(value: DslValue): DslTypeName {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'list';
  }
}

export function isList(value: DslValue): value is readonly DslValue[] {
  return Array.isArray(value);
}

/** Converts a value to the text nuclei would put in a request or a result. */
export function toText(value: DslValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatFloatPlain(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return '';
  return formatList(value);
}

/** Go's `fmt.Sprintf("%v", value)`: how govaluate's `+` joins a string with another value. */
export function toGoDisplay(value: DslValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatFloatShortest(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return '<nil>';
  return formatList(value);
}

/** An integer as Go prints an `int` with `%v`: digits, no exponent. */
export function formatInteger(value: number): string {
  return Number.isFinite(value) ? formatFloatPlain(Math.trunc(value)) : formatFloatShortest(value);
}

function formatList(values: readonly DslValue[]): string {
  return `[${values.map(toGoDisplay).join(' ')}]`;
}

interface Decimal {
  readonly negative: boolean;
  /** Significant digits without leading or trailing zeros ("0" for zero). */
  readonly digits: string;
  /** Decimal exponent of the first digit: value = 0.d1d2… × 10^(point). */
  readonly point: number;
}

/** The shortest decimal digits that round-trip, as Go's and JavaScript's shortest formatting both use. */
function shortestDecimal(value: number): Decimal {
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  return { negative: value < 0 || Object.is(value, -0), digits, point: Number(exponent) + 1 };
}

function nonFinite(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  return value > 0 ? '+Inf' : '-Inf';
}

/** Go's `strconv.FormatFloat(value, 'f', -1, 64)`. */
export function formatFloatPlain(value: number): string {
  if (!Number.isFinite(value)) return nonFinite(value);
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const { negative, digits, point } = shortestDecimal(value);
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${text}` : text;
}

/** Go's `strconv.FormatFloat(value, 'g', -1, 64)`, which `%v` uses for floats. */
export function formatFloatShortest(value: number): string {
  if (!Number.isFinite(value)) return nonFinite(value);
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const { negative, digits, point } = shortestDecimal(value);
  const exponent = point - 1;
  // With the shortest precision Go uses 6 as the precision that decides between %e and %f.
  if (exponent < -4 || exponent >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const sign = exponent < 0 ? '-' : '+';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${negative ? '-' : ''}${mantissa}e${sign}${magnitude}`;
  }
  return formatFloatPlain(value);
}

/** govaluate's `==`: Go's reflect.DeepEqual over the values. */
export function deepEqual(left: DslValue, right: DslValue): boolean {
  if (left === right) return true;
  if (typeof left === 'number' && typeof right === 'number') return false;
  if (isList(left) && isList(right)) {
    if (left.length !== right.length) return false;
    return left.every((item, index) => deepEqual(item, right[index] as DslValue));
  }
  return false;
}

/** A JSON-friendly description of a value's type for error messages (values themselves are never shown). */
export function describeType(value: DslValue): string {
  const name = typeName(value);
  return name === 'null' ? 'null' : `a ${name}`;
}
