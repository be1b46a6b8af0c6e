import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function fails(source: string): DslEvaluationError {
  try {
    evaluate(source);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

const pad = (value: number): string => String(value).padStart(2, '0');

/** 2022-01-13T16:30:10Z */
const MOMENT = 1642091410;

describe('unix_time', () => {
  it('returns the current unix time in seconds, optionally shifted', () => {
    const before = Math.floor(Date.now() / 1000);
    const now = evaluate('unix_time()') as number;
    const later = evaluate('unix_time(10)') as number;
    const after = Math.floor(Date.now() / 1000);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
    expect(later).toBeGreaterThanOrEqual(before + 10);
    expect(later).toBeLessThanOrEqual(after + 10);
  });

  it('compares with a certificate expiry the way nuclei templates do', () => {
    expect(evaluate('unixtime() > not_after', { not_after: Math.floor(Date.now() / 1000) - 1000 })).toBe(
      true,
    );
  });
});

describe('date_time', () => {
  it('formats the simple %Y %M %D %H %m %S tokens, zero-padded, in local time', () => {
    const local = new Date(MOMENT * 1000);
    const expected = `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ${pad(local.getHours())}:${pad(local.getMinutes())}:${pad(local.getSeconds())}`;
    expect(evaluate(`date_time("%Y-%M-%D %H:%m:%S", ${MOMENT})`)).toBe(expected);
    expect(evaluate(`date_time("%D-%M-%Y", "${MOMENT}")`)).toBe(
      `${pad(local.getDate())}-${pad(local.getMonth() + 1)}-${local.getFullYear()}`,
    );
  });

  it('formats the current time without a second argument', () => {
    const before = new Date();
    const formatted = evaluate('date_time("%Y-%M-%D")');
    const after = new Date();
    const day = (date: Date): string =>
      `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
    expect([day(before), day(after)]).toContain(formatted);
  });

  it('formats Go reference-time layouts', () => {
    const local = new Date(MOMENT * 1000);
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const hour12 = local.getHours() % 12 === 0 ? 12 : local.getHours() % 12;
    expect(evaluate(`date_time("02-01-2006 15:04", ${MOMENT})`)).toBe(
      `${pad(local.getDate())}-${pad(local.getMonth() + 1)}-${local.getFullYear()} ${pad(local.getHours())}:${pad(local.getMinutes())}`,
    );
    expect(evaluate(`date_time("Monday Jan _2 06 3:4:5 PM", ${MOMENT})`)).toBe(
      `${days[local.getDay()]} ${months[local.getMonth()]} ${String(local.getDate()).padStart(2, ' ')} ${String(local.getFullYear() % 100).padStart(2, '0')} ${hour12}:${local.getMinutes()}:${local.getSeconds()} ${local.getHours() >= 12 ? 'PM' : 'AM'}`,
    );
  });

  it('rejects an unknown simple token', () => {
    expect(fails('date_time("%Q")').message).toContain('%Q');
  });
});

describe('to_unix_time', () => {
  it('parses the default layouts, with or without a zone (UTC without one, as time.Parse does)', () => {
    expect(evaluate('to_unix_time("2022-01-13T16:30:10Z")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("2022-01-13T16:30:10+00:00")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("2022-01-13T16:30:10-00:00")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("2022-01-13 16:30:10 +01:00")')).toBe(MOMENT - 3600);
    expect(evaluate('to_unix_time("2022-01-13 16:30 +01:00")')).toBe(MOMENT - 3600 - 10);
    expect(evaluate('to_unix_time("2022-01-13 +02:00")')).toBe(1642032000 - 7200);
    expect(evaluate('to_unix_time("2022-01-13 -02:00")')).toBe(1642032000 + 7200);
    expect(evaluate('to_unix_time("2022-01-13 16:30:10")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("2022-01-13")')).toBe(1642032000);
    expect(evaluate('to_unix_time("2022-01-13T16:30:10.123456Z")')).toBe(MOMENT);
  });

  it('passes a number through, truncated', () => {
    expect(evaluate('to_unix_time("1642091410")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("1642091410.9")')).toBe(MOMENT);
  });

  it('parses with a given Go layout', () => {
    expect(evaluate('to_unix_time("13-01-2022 16:30:10", "02-01-2006 15:04:05")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("13-01-2022 16:30:10 +02:00", "02-01-2006 15:04:05 Z07:00")')).toBe(
      MOMENT - 7200,
    );
    expect(evaluate('to_unix_time("13-01-2022 -03:30", "02-01-2006 Z07:00")')).toBe(1642032000 + 12600);
    expect(evaluate('to_unix_time("Thu, 13 Jan 2022 16:30:10 GMT", "Mon, 02 Jan 2006 15:04:05 MST")')).toBe(
      MOMENT,
    );
    expect(evaluate('to_unix_time("01/13/2022 04:30:10 PM", "01/02/2006 03:04:05 PM")')).toBe(MOMENT);
    expect(evaluate('to_unix_time("January 13, 2022", "January 2, 2006")')).toBe(1642032000);
  });

  it('fails on text that matches no layout', () => {
    expect(fails('to_unix_time("yesterday")').kind).toBe('argument');
    expect(fails('to_unix_time("2022-02-30")').kind).toBe('argument');
    expect(fails('to_unix_time("13-01-2022", "2006-01-02")').message).toContain('2006-01-02');
  });
});
