import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function check(version: string, ...constraints: string[]): unknown {
  return evaluate(
    `compare_versions(${[version, ...constraints].map((text) => JSON.stringify(text)).join(', ')})`,
  );
}

function fails(source: string): DslEvaluationError {
  try {
    evaluate(source);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('compare_versions', () => {
  it("checks constraints as nuclei's tests do", () => {
    expect(check('v1.0.0', '<1.1.1')).toBe(true);
    expect(check('v1.1.1', '>v1.1.0')).toBe(true);
    expect(check('v1.0.0', '>v0.0.1,<v1.0.1')).toBe(true);
    expect(check('v1.0.0', '>v0.0.1', '<v1.0.1')).toBe(true);
  });

  it('checks an upper bound as WordPress plugin templates do', () => {
    expect(evaluate('compare_versions(version, "<= 5.8.1")', { version: '5.8.1' })).toBe(true);
    expect(evaluate('compare_versions(version, "<= 5.8.1")', { version: '5.8.2' })).toBe(false);
    expect(
      evaluate('compare_versions(internal_detected_version, concat("< ", last_version))', {
        internal_detected_version: '5.7.4',
        last_version: '5.9.3',
      }),
    ).toBe(true);
  });

  it('pads missing segments with zeros and compares extra segments', () => {
    expect(check('1.2', '= 1.2.0')).toBe(true);
    expect(check('1.2.3.4', '> 1.2.3')).toBe(true);
    expect(check('1.2.3.0', '= 1.2.3')).toBe(true);
    expect(check('2', '>= 1.9.9')).toBe(true);
  });

  it('orders pre-releases and keeps them out of plain ranges (go-version rules)', () => {
    expect(check('1.0.0-beta.2', '> 1.0.0-beta.1')).toBe(true);
    expect(check('1.0.0-rc1', '>= 1.0.0-alpha')).toBe(true);
    expect(check('1.0.0-beta', '< 1.0.0')).toBe(false);
    expect(check('1.0.0-beta', '>= 0.9')).toBe(false);
    expect(check('1.0.0', '> 1.0.0-beta')).toBe(true);
    expect(check('1.0.0-2', '> 1.0.0-1')).toBe(true);
    expect(check('1.0beta', '= 1.0.0-beta')).toBe(true);
  });

  it('ignores build metadata when comparing', () => {
    expect(check('1.0.0+build.5', '= 1.0.0')).toBe(true);
  });

  it('supports the pessimistic operator ~>', () => {
    expect(check('1.2.3', '~> 1.2')).toBe(true);
    expect(check('2.0.0', '~> 1.2')).toBe(false);
    expect(check('1.2.9', '~> 1.2.3')).toBe(true);
    expect(check('1.3.0', '~> 1.2.3')).toBe(false);
  });

  it('supports != and = without spaces', () => {
    expect(check('1.0.1', '!=1.0.0')).toBe(true);
    expect(check('1.0.0', '1.0.0')).toBe(true);
  });

  it('fails on a malformed version or constraint', () => {
    expect(fails('compare_versions("nonsense", "< 1.0")').message).toContain('malformed version');
    expect(fails('compare_versions(" 1.0", "< 2.0")').kind).toBe('argument');
    expect(fails('compare_versions("1.0", "about 2")').message).toContain('malformed constraint');
  });
});

describe('compare_versions on repeated inputs', () => {
  it('gives the same answers and errors when the parses are remembered', () => {
    for (let round = 0; round < 3; round++) {
      expect(check('5.8.0', '<= 5.8.1')).toBe(true);
      expect(check('5.9.0', '<= 5.8.1')).toBe(false);
      expect(fails('compare_versions("x.y", "<= 5.8.1")').kind).toBe('argument');
      expect(fails('compare_versions("5.8.0", "<=> 5")').kind).toBe('argument');
    }
  });
});
