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

describe('to_number and to_string', () => {
  it('parses integers and floats as govalidator and strconv accept them', () => {
    expect(evaluate("to_number('4')")).toBe(4);
    expect(evaluate("to_number('-4.5')")).toBe(-4.5);
    expect(evaluate("to_number('1e3')")).toBe(1000);
    expect(evaluate("to_number('0123')")).toBe(123);
    expect(evaluate('10 + to_number(b)', { b: '4' })).toBe(14);
  });

  it('fails on text that is not a number', () => {
    expect(fails("to_number('abc')").kind).toBe('argument');
    expect(fails("to_number('')").kind).toBe('argument');
    expect(fails("to_number('0x10')").kind).toBe('argument');
  });

  it('converts any value to its text', () => {
    expect(evaluate('to_string(4)')).toBe('4');
    expect(evaluate('to_string(1000000)')).toBe('1000000');
    expect(evaluate('to_string(true)')).toBe('true');
  });
});

describe('base conversions', () => {
  it('converts a decimal number to hex', () => {
    expect(evaluate('dec_to_hex(7001)')).toBe('1b59');
    expect(evaluate('dec_to_hex(11111)')).toBe('2b67');
    expect(evaluate('dec_to_hex(-255)')).toBe('-ff');
    expect(evaluate("dec_to_hex('255')")).toBe('ff');
  });

  it('converts hex, octal and binary text to a number, with or without prefix', () => {
    expect(evaluate('hex_to_dec("ff")')).toBe(255);
    expect(evaluate('hex_to_dec("0xff")')).toBe(255);
    expect(evaluate('oct_to_dec("0o1234567")')).toBe(342391);
    expect(evaluate('oct_to_dec("1234567")')).toBe(342391);
    expect(evaluate('oct_to_dec(1234567)')).toBe(342391);
    expect(evaluate('bin_to_dec("0b1010")')).toBe(10);
    expect(evaluate('bin_to_dec("1010")')).toBe(10);
    expect(evaluate('bin_to_dec(1010)')).toBe(10);
  });

  it('fails on digits outside the base and on values beyond int64', () => {
    expect(fails('bin_to_dec("102")').kind).toBe('argument');
    expect(fails('hex_to_dec("fffffffffffffffff")').message).toContain('out of range');
  });
});
