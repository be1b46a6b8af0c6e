/** Number conversion helpers of projectdiscovery/dsl. */
import { argumentError } from '../errors.js';
import type { DslValue } from '../value.js';
import { arg, fixed, type HelperFunction, numberArg, str, textArg } from './helper.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(text, base, 64) for bases 2, 8 and 16 (and 0 with the base's prefix). */
function parseInt64(functionName: string, text: string, base: 2 | 8 | 16, prefix: string): number {
  const digits = { 2: '01', 8: '0-7', 16: '0-9a-fA-F' }[base];
  const hasPrefix = text.startsWith(prefix);
  const body = hasPrefix ? text.slice(prefix.length) : text;
  const pattern = hasPrefix
    ? new RegExp(`^[${digits}](?:_?[${digits}])*$`)
    : new RegExp(`^[-+]?[${digits}]+$`);
  if (!pattern.test(body)) throw argumentError(functionName, 'invalid number');
  const negative = body.startsWith('-');
  const magnitude = BigInt(
    `0${{ 2: 'b', 8: 'o', 16: 'x' }[base]}${body.replace(/^[-+]/, '').replaceAll('_', '')}`,
  );
  const value = negative ? -magnitude : magnitude;
  if (value < INT64_MIN || value > INT64_MAX) throw argumentError(functionName, 'number out of range');
  return Number(value);
}

const GO_INT = /^[-+]?(?:0|[1-9][0-9]*)$/;
const GO_FLOAT = /^(?:[-+]?[0-9]+)?(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$/;
const PARSE_FLOAT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** govalidator's IsInt / IsFloat followed by strconv's Atoi / ParseFloat. */
function toNumber(args: readonly DslValue[]): number {
  const text = textArg(args, 0);
  if (GO_INT.test(text)) {
    const value = Number(text);
    if (!Number.isSafeInteger(value) && (BigInt(text) < INT64_MIN || BigInt(text) > INT64_MAX)) {
      throw argumentError('to_number', 'value out of range');
    }
    return value;
  }
  if (text !== '' && GO_FLOAT.test(text) && PARSE_FLOAT.test(text)) return Number(text);
  throw argumentError('to_number', 'value could not be converted to a number');
}

/** Go's int64(f) for a float: truncation, wrapping like the hardware conversion does for huge values. */
export function toInt64(value: number): bigint {
  if (!Number.isFinite(value)) return INT64_MIN;
  return BigInt.asIntN(64, BigInt(Math.trunc(value)));
}

function decToHex(args: readonly DslValue[]): string {
  const value = arg(args, 0);
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw argumentError('dec_to_hex', 'argument must be a number');
  }
  return toInt64(numberArg('dec_to_hex', args, 0)).toString(16);
}

export const numberFunctions: readonly HelperFunction[] = [
  fixed('to_number', 1, toNumber),
  fixed('to_string', 1, (args) => str(arg(args, 0))),
  fixed('dec_to_hex', 1, decToHex),
  fixed('hex_to_dec', 1, (args) => parseInt64('hex_to_dec', textArg(args, 0), 16, '0x')),
  fixed('oct_to_dec', 1, (args) => parseInt64('oct_to_dec', textArg(args, 0), 8, '0o')),
  fixed('bin_to_dec', 1, (args) => parseInt64('bin_to_dec', textArg(args, 0), 2, '0b')),
];
