import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestamp } from './time.js';

const LAST_OF_YEAR_9999 = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('formatTimestamp', () => {
  it('writes every whole millisecond of the years 0 to 9999 as toISOString does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: new Date('0000-01-01T00:00:00.000Z').getTime(), max: LAST_OF_YEAR_9999 }),
        (ms) => {
          expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('writes the edges of days, leap days and centuries as toISOString does', () => {
    const instants = [
      '0000-01-01T00:00:00.000Z',
      '0000-02-29T12:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '1900-02-28T23:59:59.999Z',
      '1900-03-01T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2000-03-01T00:00:00.000Z',
      '2024-12-31T23:59:59.999Z',
      '2100-03-01T00:00:00.001Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const instant of instants) expect(formatTimestamp(Date.parse(instant))).toBe(instant);
  });

  it('leaves instants outside the years 0 to 9999, and fractions of a millisecond, to toISOString', () => {
    expect(formatTimestamp(LAST_OF_YEAR_9999 + 1)).toBe('+010000-01-01T00:00:00.000Z');
    expect(formatTimestamp(new Date('0000-01-01T00:00:00.000Z').getTime() - 1)).toBe(
      '-000001-12-31T23:59:59.999Z',
    );
    expect(formatTimestamp(1.5)).toBe(new Date(1.5).toISOString());
    expect(formatTimestamp(-1.5)).toBe(new Date(-1.5).toISOString());
  });

  it('writes nothing for a timestamp not set, and refuses one that is no instant as toISOString does', () => {
    expect(formatTimestamp(null)).toBe('');
    expect(formatTimestamp(undefined)).toBe('');
    expect(() => formatTimestamp(Number.NaN)).toThrow(RangeError);
  });
});
