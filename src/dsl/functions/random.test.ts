import { isIPv6 } from 'node:net';
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

/** Evaluates a random helper many times so that a wrong alphabet shows up. */
function samples(source: string, count = 50): string[] {
  return Array.from({ length: count }, () => String(evaluate(source)));
}

describe('random text', () => {
  it('draws rand_base from a charset, letters and digits by default', () => {
    for (const value of samples('rand_base(5, "abc")')) expect(value).toMatch(/^[abc]{5}$/);
    for (const value of samples('rand_base(10, "")')) expect(value).toMatch(/^[a-zA-Z0-9]{10}$/);
    for (const value of samples('rand_base(5)')) expect(value).toMatch(/^[a-zA-Z0-9]{5}$/);
  });

  it('draws one rand_char', () => {
    for (const value of samples('rand_char("abc")')) expect(value).toMatch(/^[abc]$/);
    for (const value of samples('rand_char()')) expect(value).toMatch(/^[a-zA-Z0-9]$/);
  });

  it('draws rand_text_* from their alphabets without the excluded characters', () => {
    for (const value of samples('rand_text_alpha(10, "abc")')) expect(value).toMatch(/^[d-zA-Z]{10}$/);
    for (const value of samples('rand_text_alpha(10)')) expect(value).toMatch(/^[a-zA-Z]{10}$/);
    for (const value of samples('rand_text_alphanumeric(10, "ab12")'))
      expect(value).toMatch(/^[c-zA-Z03-9]{10}$/);
    for (const value of samples('rand_text_numeric(10, 123)')) expect(value).toMatch(/^[04-9]{10}$/);
    for (const value of samples('rand_text_numeric(10)')) expect(value).toMatch(/^\d{10}$/);
  });

  it('varies between evaluations', () => {
    expect(new Set(samples('rand_base(16)', 10)).size).toBe(10);
  });

  it('fails when every character is excluded or the length is negative', () => {
    expect(fails('rand_text_numeric(3, "1234567890")').kind).toBe('argument');
    expect(fails('rand_base(-1)').kind).toBe('argument');
  });
});

describe('rand_int', () => {
  it('draws from [min, max), [min, MaxInt32) or [0, MaxInt32)', () => {
    for (const value of samples('rand_int(5, 9)')) expect(Number(value)).toBeGreaterThanOrEqual(5);
    for (const value of samples('rand_int(5, 9)')) expect(Number(value)).toBeLessThan(9);
    for (const value of samples('rand_int(9)')) expect(Number(value)).toBeGreaterThanOrEqual(9);
    for (const value of samples('rand_int()')) expect(Number(value)).toBeLessThan(2 ** 31 - 1);
  });

  it('is printed without an exponent when concatenated, being a Go int', () => {
    for (const value of samples('"id=" + rand_int(1000000, 2000000)', 5)) expect(value).toMatch(/^id=\d{7}$/);
  });

  it('fails on an empty range', () => {
    expect(fails('rand_int(5, 5)').kind).toBe('argument');
  });
});

describe('rand_ip', () => {
  it('draws an address inside an IPv4 CIDR other than the network address', () => {
    for (const value of samples('rand_ip("192.168.0.0/24")')) {
      expect(value).toMatch(/^192\.168\.0\.(\d+)$/);
      expect(Number(value.split('.')[3])).toBeGreaterThan(0);
    }
  });

  it('draws an address inside an IPv6 CIDR, printed as RFC 5952 text', () => {
    for (const value of samples('rand_ip("2001:db8::/64")')) {
      expect(isIPv6(value)).toBe(true);
      expect(value.startsWith('2001:db8:')).toBe(true);
      expect(value).not.toMatch(/(^|:)0\d/);
    }
  });

  it('returns the address of a single-host CIDR and picks among several CIDRs', () => {
    expect(evaluate('rand_ip("10.0.0.5/32")')).toBe('10.0.0.5');
    for (const value of samples('rand_ip("192.168.0.0/24", "10.0.100.0/24")')) {
      expect(value).toMatch(/^(192\.168\.0|10\.0\.100)\.\d+$/);
    }
  });

  it('fails on an argument that is not a CIDR', () => {
    expect(fails('rand_ip("10.0.0.0")').kind).toBe('argument');
    expect(fails('rand_ip("10.0.0.0/33")').kind).toBe('argument');
  });
});
