/**
 * Go's reference-time layouts (`2006-01-02 15:04:05 Z07:00`), formatting and parsing, which nuclei's
 * `date_time` and `to_unix_time` expose to templates. Written here because no JavaScript library speaks
 * Go's layout language; it follows the chunk rules of Go's time/format.go.
 */

type Chunk =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'field'; readonly field: Field; readonly digits?: number };

type Field =
  | 'longMonth'
  | 'month'
  | 'numMonth'
  | 'zeroMonth'
  | 'longWeekDay'
  | 'weekDay'
  | 'day'
  | 'underDay'
  | 'zeroDay'
  | 'underYearDay'
  | 'zeroYearDay'
  | 'hour'
  | 'hour12'
  | 'zeroHour12'
  | 'minute'
  | 'zeroMinute'
  | 'second'
  | 'zeroSecond'
  | 'longYear'
  | 'year'
  | 'PM'
  | 'pm'
  | 'tz'
  | 'iso8601TZ'
  | 'iso8601SecondsTZ'
  | 'iso8601ShortTZ'
  | 'iso8601ColonTZ'
  | 'iso8601ColonSecondsTZ'
  | 'numTZ'
  | 'numSecondsTz'
  | 'numShortTZ'
  | 'numColonTZ'
  | 'numColonSecondsTZ'
  | 'fracSecond0'
  | 'fracSecond9';

/** Layout prefixes, longest first where one is a prefix of another. */
const FIELDS: readonly (readonly [string, Field])[] = [
  ['January', 'longMonth'],
  ['Monday', 'longWeekDay'],
  ['MST', 'tz'],
  ['2006', 'longYear'],
  ['002', 'zeroYearDay'],
  ['__2', 'underYearDay'],
  ['_2', 'underDay'],
  ['01', 'zeroMonth'],
  ['02', 'zeroDay'],
  ['03', 'zeroHour12'],
  ['04', 'zeroMinute'],
  ['05', 'zeroSecond'],
  ['06', 'year'],
  ['15', 'hour'],
  ['1', 'numMonth'],
  ['2', 'day'],
  ['3', 'hour12'],
  ['4', 'minute'],
  ['5', 'second'],
  ['PM', 'PM'],
  ['pm', 'pm'],
  ['-07:00:00', 'numColonSecondsTZ'],
  ['-070000', 'numSecondsTz'],
  ['-07:00', 'numColonTZ'],
  ['-0700', 'numTZ'],
  ['-07', 'numShortTZ'],
  ['Z07:00:00', 'iso8601ColonSecondsTZ'],
  ['Z070000', 'iso8601SecondsTZ'],
  ['Z07:00', 'iso8601ColonTZ'],
  ['Z0700', 'iso8601TZ'],
  ['Z07', 'iso8601ShortTZ'],
];

function isLower(char: string | undefined): boolean {
  return char !== undefined && char >= 'a' && char <= 'z';
}

function isDigitAt(text: string, index: number): boolean {
  const char = text[index];
  return char !== undefined && char >= '0' && char <= '9';
}

/** Splits a layout into literal text and fields, as Go's nextStdChunk does. */
export function parseLayout(layout: string): Chunk[] {
  const chunks: Chunk[] = [];
  let text = '';
  let i = 0;
  while (i < layout.length) {
    const found = fieldAt(layout, i);
    if (found === undefined) {
      text += layout[i];
      i += 1;
      continue;
    }
    if (text !== '') chunks.push({ kind: 'text', text });
    text = '';
    chunks.push(found.chunk);
    i += found.length;
  }
  if (text !== '') chunks.push({ kind: 'text', text });
  return chunks;
}

function fieldAt(layout: string, i: number): { chunk: Chunk; length: number } | undefined {
  // "_2006" is a literal underscore followed by the year, not "_2" (space-padded day) and "006".
  if (layout.startsWith('_2006', i)) return undefined;
  if (layout.startsWith('Jan', i) && !layout.startsWith('January', i)) {
    return isLower(layout[i + 3]) ? undefined : { chunk: { kind: 'field', field: 'month' }, length: 3 };
  }
  if (layout.startsWith('Mon', i) && !layout.startsWith('Monday', i)) {
    return isLower(layout[i + 3]) ? undefined : { chunk: { kind: 'field', field: 'weekDay' }, length: 3 };
  }
  const char = layout[i];
  if ((char === '.' || char === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
    const digit = layout[i + 1] as string;
    let j = i + 1;
    while (layout[j] === digit) j += 1;
    if (!isDigitAt(layout, j)) {
      const field: Field = digit === '0' ? 'fracSecond0' : 'fracSecond9';
      return { chunk: { kind: 'field', field, digits: j - i - 1 }, length: j - i };
    }
  }
  for (const [prefix, field] of FIELDS) {
    if (layout.startsWith(prefix, i)) return { chunk: { kind: 'field', field }, length: prefix.length };
  }
  return undefined;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A moment with the wall-clock fields of some zone. */
export interface ZonedTime {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly nanosecond: number;
  readonly weekDay: number;
  readonly yearDay: number;
  /** Seconds east of UTC. */
  readonly offset: number;
  readonly zoneName: string;
}

/** The wall-clock fields of `epochSeconds` in this process's local time zone, as Go's time.Local. */
export function localTime(epochMilliseconds: number): ZonedTime {
  const date = new Date(epochMilliseconds);
  const startOfYear = new Date(date.getFullYear(), 0, 1);
  const yearDay = Math.round((dateOnly(date) - dateOnly(startOfYear)) / 86_400_000) + 1;
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    nanosecond: (((epochMilliseconds % 1000) + 1000) % 1000) * 1_000_000,
    weekDay: date.getDay(),
    yearDay,
    offset: -date.getTimezoneOffset() * 60,
    zoneName: zoneAbbreviation(date),
  };
}

function dateOnly(date: Date): number {
  return Date.UTC(date.getFullYear(), date.getMonth(), date.getDate());
}

function zoneAbbreviation(date: Date): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
    .formatToParts(date)
    .find((candidate) => candidate.type === 'timeZoneName');
  const name = part?.value ?? '';
  return /^[A-Z]{3,5}$/.test(name) ? name : '';
}

function pad(value: number, width: number, filler = '0'): string {
  const sign = value < 0 ? '-' : '';
  return sign + String(Math.abs(value)).padStart(width, filler);
}

/** Go's Time.Format. */
export function formatTime(time: ZonedTime, layout: string): string {
  let out = '';
  for (const chunk of parseLayout(layout)) {
    out += chunk.kind === 'text' ? chunk.text : formatField(time, chunk.field, chunk.digits ?? 0);
  }
  return out;
}

function formatField(time: ZonedTime, field: Field, digits: number): string {
  const hour12 = time.hour % 12 === 0 ? 12 : time.hour % 12;
  switch (field) {
    case 'longMonth':
      return MONTHS[time.month - 1] as string;
    case 'month':
      return (MONTHS[time.month - 1] as string).slice(0, 3);
    case 'numMonth':
      return String(time.month);
    case 'zeroMonth':
      return pad(time.month, 2);
    case 'longWeekDay':
      return DAYS[time.weekDay] as string;
    case 'weekDay':
      return (DAYS[time.weekDay] as string).slice(0, 3);
    case 'day':
      return String(time.day);
    case 'underDay':
      return pad(time.day, 2, ' ');
    case 'zeroDay':
      return pad(time.day, 2);
    case 'underYearDay':
      return pad(time.yearDay, 3, ' ');
    case 'zeroYearDay':
      return pad(time.yearDay, 3);
    case 'hour':
      return pad(time.hour, 2);
    case 'hour12':
      return String(hour12);
    case 'zeroHour12':
      return pad(hour12, 2);
    case 'minute':
      return String(time.minute);
    case 'zeroMinute':
      return pad(time.minute, 2);
    case 'second':
      return String(time.second);
    case 'zeroSecond':
      return pad(time.second, 2);
    case 'longYear':
      return pad(time.year, 4);
    case 'year':
      return pad(((time.year % 100) + 100) % 100, 2);
    case 'PM':
      return time.hour >= 12 ? 'PM' : 'AM';
    case 'pm':
      return time.hour >= 12 ? 'pm' : 'am';
    case 'tz':
      return time.zoneName !== '' ? time.zoneName : formatOffset(time.offset, 'numTZ');
    case 'fracSecond0':
      return `.${String(time.nanosecond).padStart(9, '0').slice(0, digits)}`;
    case 'fracSecond9': {
      const fraction = String(time.nanosecond).padStart(9, '0').slice(0, digits).replace(/0+$/, '');
      return fraction === '' ? '' : `.${fraction}`;
    }
    default:
      return formatOffset(time.offset, field);
  }
}

function formatOffset(offset: number, field: Field): string {
  if (field.startsWith('iso8601') && offset === 0) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const total = Math.abs(offset);
  const hours = pad(Math.floor(total / 3600), 2);
  const minutes = pad(Math.floor((total % 3600) / 60), 2);
  const seconds = pad(total % 60, 2);
  switch (field) {
    case 'numShortTZ':
    case 'iso8601ShortTZ':
      return sign + hours;
    case 'numColonTZ':
    case 'iso8601ColonTZ':
      return `${sign}${hours}:${minutes}`;
    case 'numColonSecondsTZ':
    case 'iso8601ColonSecondsTZ':
      return `${sign}${hours}:${minutes}:${seconds}`;
    case 'numSecondsTz':
    case 'iso8601SecondsTZ':
      return sign + hours + minutes + seconds;
    default:
      return sign + hours + minutes;
  }
}

export class TimeParseError extends Error {}

/**
 * Go's time.Parse: the seconds since the epoch of `value` read with `layout`. Without a zone in the
 * layout the time is UTC, as time.Parse decides. Zone abbreviations other than UTC/GMT count as UTC.
 */
export function parseTime(value: string, layout: string): number {
  const state = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, offset: 0, pm: false, am: false };
  let rest = value;
  const chunks = parseLayout(layout);
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index] as Chunk;
    if (chunk.kind === 'text') {
      rest = skipText(rest, chunk.text);
      continue;
    }
    rest = parseField(rest, chunk.field, state, chunks[index + 1]);
  }
  if (rest !== '') throw new TimeParseError(`extra text ${JSON.stringify(rest)}`);
  if (state.pm && state.hour < 12) state.hour += 12;
  if (state.am && state.hour === 12) state.hour = 0;
  if (state.day < 1 || state.day > daysIn(state.month, state.year))
    throw new TimeParseError('day out of range');
  const date = new Date(0);
  date.setUTCFullYear(state.year, state.month - 1, state.day);
  date.setUTCHours(state.hour, state.minute, state.second, 0);
  return Math.floor(date.getTime() / 1000) - state.offset;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Go's skip: a space in the layout matches any run of spaces in the value. */
function skipText(value: string, text: string): string {
  let rest = value;
  let prefix = text;
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (rest.length > 0 && rest[0] !== ' ') throw new TimeParseError('layout mismatch');
      prefix = prefix.trimStart();
      rest = rest.replace(/^ +/, '');
      continue;
    }
    if (rest[0] !== prefix[0]) throw new TimeParseError('layout mismatch');
    prefix = prefix.slice(1);
    rest = rest.slice(1);
  }
  return rest;
}

interface ParseState {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offset: number;
  pm: boolean;
  am: boolean;
}

function number(value: string, fixed: boolean, field: string): [number, string] {
  if (!isDigitAt(value, 0)) throw new TimeParseError(`bad ${field}`);
  if (!isDigitAt(value, 1)) {
    if (fixed) throw new TimeParseError(`bad ${field}`);
    return [Number(value[0]), value.slice(1)];
  }
  return [Number(value.slice(0, 2)), value.slice(2)];
}

function inRange(value: number, low: number, high: number, field: string): number {
  if (value < low || value > high) throw new TimeParseError(`${field} out of range`);
  return value;
}

function lookup(value: string, names: readonly string[], length?: number): [number, string] {
  for (let index = 0; index < names.length; index++) {
    const name = (names[index] as string).slice(0, length);
    if (value.slice(0, name.length).toLowerCase() === name.toLowerCase())
      return [index, value.slice(name.length)];
  }
  throw new TimeParseError('bad name');
}

function parseField(value: string, field: Field, state: ParseState, next: Chunk | undefined): string {
  switch (field) {
    case 'longYear': {
      if (!/^\d{4}/.test(value)) throw new TimeParseError('bad year');
      state.year = Number(value.slice(0, 4));
      return value.slice(4);
    }
    case 'year': {
      if (!/^\d{2}/.test(value)) throw new TimeParseError('bad year');
      const year = Number(value.slice(0, 2));
      state.year = year >= 69 ? 1900 + year : 2000 + year;
      return value.slice(2);
    }
    case 'longMonth':
    case 'month': {
      const [month, rest] = lookup(value, MONTHS, field === 'month' ? 3 : undefined);
      state.month = month + 1;
      return rest;
    }
    case 'numMonth':
    case 'zeroMonth': {
      const [month, rest] = number(value, field === 'zeroMonth', 'month');
      state.month = inRange(month, 1, 12, 'month');
      return rest;
    }
    case 'longWeekDay':
    case 'weekDay':
      return lookup(value, DAYS, field === 'weekDay' ? 3 : undefined)[1];
    case 'day':
    case 'underDay':
    case 'zeroDay': {
      const source = field === 'underDay' && value[0] === ' ' ? value.slice(1) : value;
      const [day, rest] = number(source, field === 'zeroDay', 'day');
      state.day = day;
      return rest;
    }
    case 'underYearDay':
    case 'zeroYearDay': {
      const match = /^ {0,2}(\d{1,3})/.exec(value);
      if (match === null) throw new TimeParseError('bad day of year');
      return value.slice(match[0].length);
    }
    case 'hour': {
      const [hour, rest] = number(value, false, 'hour');
      state.hour = inRange(hour, 0, 23, 'hour');
      return rest;
    }
    case 'hour12':
    case 'zeroHour12': {
      const [hour, rest] = number(value, field === 'zeroHour12', 'hour');
      state.hour = inRange(hour, 0, 12, 'hour');
      return rest;
    }
    case 'minute':
    case 'zeroMinute': {
      const [minute, rest] = number(value, field === 'zeroMinute', 'minute');
      state.minute = inRange(minute, 0, 59, 'minute');
      return rest;
    }
    case 'second':
    case 'zeroSecond': {
      const [second, rest] = number(value, field === 'zeroSecond', 'second');
      state.second = inRange(second, 0, 59, 'second');
      const nextIsFraction = next?.kind === 'field' && next.field.startsWith('fracSecond');
      // Go accepts a fraction after the seconds even when the layout has none.
      const fraction = /^[.,]\d+/.exec(rest);
      return fraction !== null && !nextIsFraction ? rest.slice(fraction[0].length) : rest;
    }
    case 'PM':
    case 'pm': {
      const marker = value.slice(0, 2);
      const [pm, am] = field === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
      if (marker === pm) state.pm = true;
      else if (marker === am) state.am = true;
      else throw new TimeParseError('bad AM/PM');
      return value.slice(2);
    }
    case 'tz': {
      const match = /^(UTC|GMT|[A-Z]{3,5})([+-]\d{1,2})?/.exec(value);
      if (match === null) throw new TimeParseError('bad time zone');
      state.offset = match[1] === 'GMT' && match[2] !== undefined ? Number(match[2]) * 3600 : 0;
      return value.slice(match[0].length);
    }
    case 'fracSecond0':
    case 'fracSecond9': {
      const match = field === 'fracSecond0' ? /^[.,]\d+/.exec(value) : /^(?:[.,]\d+)?/.exec(value);
      if (match === null) throw new TimeParseError('bad fractional second');
      return value.slice(match[0].length);
    }
    default:
      return parseOffset(value, field, state);
  }
}

function parseOffset(value: string, field: Field, state: ParseState): string {
  if (field.startsWith('iso8601') && value[0] === 'Z') {
    state.offset = 0;
    return value.slice(1);
  }
  const shapes: Partial<Record<Field, RegExp>> = {
    numShortTZ: /^([+-])(\d\d)/,
    iso8601ShortTZ: /^([+-])(\d\d)/,
    numTZ: /^([+-])(\d\d)(\d\d)/,
    iso8601TZ: /^([+-])(\d\d)(\d\d)/,
    numColonTZ: /^([+-])(\d\d):(\d\d)/,
    iso8601ColonTZ: /^([+-])(\d\d):(\d\d)/,
    numSecondsTz: /^([+-])(\d\d)(\d\d)(\d\d)/,
    iso8601SecondsTZ: /^([+-])(\d\d)(\d\d)(\d\d)/,
    numColonSecondsTZ: /^([+-])(\d\d):(\d\d):(\d\d)/,
    iso8601ColonSecondsTZ: /^([+-])(\d\d):(\d\d):(\d\d)/,
  };
  const match = (shapes[field] as RegExp).exec(value);
  if (match === null) throw new TimeParseError('bad time zone offset');
  const [, sign, hours = '0', minutes = '0', seconds = '0'] = match;
  const magnitude = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
  state.offset = sign === '-' ? -magnitude : magnitude;
  return value.slice(match[0].length);
}
