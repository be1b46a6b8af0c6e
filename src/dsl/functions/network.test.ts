import { describe, expect, it } from 'vitest';
import { evaluate } from '../testing/evaluate.js';

describe('ip_format', () => {
  it.each([
    [1, '127.0.0.1'],
    [2, '127.1'],
    [3, '0177.0.0.01'],
    [4, '0x7f.0x0.0x0.0x1'],
    [5, '2130706433'],
    [6, '1111111000000000000000000000001'],
    [7, '0x7f.0.0.0x1'],
    [8, '::ffff:7f00:0001'],
    [9, '%31%32%37%2E%30%2E%30%2E%31'],
    [10, '127.000.000.001'],
  ])('writes 127.0.0.1 in mapcidr notation %i as %s', (format, expected) => {
    expect(evaluate(`ip_format("127.0.0.1", ${format})`)).toBe(expected);
  });

  it('overflows a last part of 0 into the third (notation 11)', () => {
    expect(evaluate('ip_format("127.0.1.0", 11)')).toBe('127.0.256');
  });

  it('writes IPv6 addresses in Go’s shortest form and as their number', () => {
    expect(evaluate('ip_format("2001:0db8:0:0:0:0:0:0001", 1)')).toBe('2001:db8::1');
    expect(evaluate('ip_format("::1", 5)')).toBe('1');
  });

  it('refuses a format out of range and a text that is no address, naming the helper', () => {
    expect(() => evaluate('ip_format("127.0.0.1", 12)')).toThrow(
      /ip_format: invalid format, format must be in range 1-11/,
    );
    expect(() => evaluate('ip_format("localhost", 1)')).toThrow(
      /ip_format: "localhost" is not an IP address/,
    );
    expect(() => evaluate('ip_format("127.0.0.1", 11)')).toThrow(/last part is 0/);
  });
});
