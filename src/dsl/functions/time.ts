/** Time helpers of projectdiscovery/dsl: `unix_time`, `date_time`, `to_unix_time`. */
import { argumentError } from '../errors.js';
import { formatTime, localTime, parseTime, TimeParseError } from '../gotime.js';
import type { DslValue } from '../value.js';
import { arg, type HelperFunction, numberArg, ranged, textArg } from './helper.js';

/** Layouts `to_unix_time` tries without an explicit one, in order. */
const DEFAULT_LAYOUTS = [
  '2006-01-02T15:04:05Z07:00',
  '2006-01-02 15:04:05 Z07:00',
  '2006-01-02 15:04:05',
  '2006-01-02 15:04 Z07:00',
  '2006-01-02 15:04',
  '2006-01-02 Z07:00',
  '2006-01-02',
];

const SIMPLE_FORMAT = /%([A-Za-z])/g;
const HAS_SIMPLE_TOKEN = /%[A-Za-z]/;

/** The moment `date_time` formats: now, or the unix seconds of its second argument. */
function momentOf(args: readonly DslValue[]): number {
  if (args.length < 2) return Date.now();
  const value = arg(args, 1);
  if (typeof value === 'string') {
    if (!/^[-+]?\d+$/.test(value)) throw argumentError('date_time', 'the time must be unix seconds');
    return Number(value) * 1000;
  }
  if (typeof value === 'number') return Math.trunc(value) * 1000;
  throw argumentError('date_time', 'the time must be unix seconds');
}

/** `%Y-%M-%D %H:%m:%S` (the dsl library's simple tokens, zero-padded) or a Go layout. */
function dateTime(args: readonly DslValue[]): string {
  const format = textArg(args, 0);
  const time = localTime(momentOf(args));
  if (!HAS_SIMPLE_TOKEN.test(format)) return formatTime(time, format);
  return format.replace(SIMPLE_FORMAT, (token, letter: string) => {
    const value = simpleToken(letter, time);
    if (value === undefined) throw argumentError('date_time', `invalid date time format string: ${token}`);
    return value < 10 ? `0${value}` : String(value);
  });
}

function simpleToken(letter: string, time: ReturnType<typeof localTime>): number | undefined {
  switch (letter) {
    case 'Y':
    case 'y':
      return time.year;
    case 'M':
      return time.month;
    case 'D':
    case 'd':
      return time.day;
    case 'H':
    case 'h':
      return time.hour;
    case 'm':
      return time.minute;
    case 'S':
    case 's':
      return time.second;
    default:
      return undefined;
  }
}

const GO_FLOAT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function toUnixTime(args: readonly DslValue[]): number {
  const input = textArg(args, 0);
  if (GO_FLOAT.test(input)) return Math.trunc(Number(input));
  const layouts = args.length > 1 ? [textArg(args, 1)] : DEFAULT_LAYOUTS;
  for (const layout of layouts) {
    try {
      return parseTime(input, layout);
    } catch (error) {
      if (!(error instanceof TimeParseError)) throw error;
    }
  }
  const reason = args.length > 1 ? `with the layout "${layouts[0]}"` : 'with the default layouts';
  throw argumentError('to_unix_time', `could not parse the time ${reason}`);
}

export const timeFunctions: readonly HelperFunction[] = [
  ranged('unix_time', 0, 1, (args) => {
    const offset = args.length > 0 ? Math.trunc(numberArg('unix_time', args, 0)) : 0;
    return Math.floor(Date.now() / 1000) + offset;
  }),
  ranged('date_time', 1, 2, dateTime),
  ranged('to_unix_time', 1, 2, toUnixTime, { integer: true }),
];
