import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bytesToText, DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function fails(source: string, variables = {}): DslEvaluationError {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('gzip', () => {
  it("decompresses Go's gzip output (vector from nuclei's documentation)", () => {
    expect(
      evaluate('gzip_decode(hex_decode("1f8b08000000000000fff248cdc9c907040000ffff8289d1f705000000"))'),
    ).toBe('Hello');
  });

  it("writes Go's header (no time, unknown OS) and round-trips binary data", () => {
    expect((evaluate('hex_encode(gzip("Hello"))') as string).slice(0, 20)).toBe('1f8b08000000000000ff');
    const data = bytesToText(Uint8Array.from({ length: 256 }, (_, i) => i));
    expect(evaluate('gzip_decode(gzip(data)) == data', { data })).toBe(true);
    expect(evaluate('gzip_decode(gzip("hello world"))')).toBe('hello world');
  });

  it('fails on data that is not gzip', () => {
    expect(fails('gzip_decode("not gzip")').kind).toBe('argument');
  });

  it('refuses to inflate beyond 10 MiB', () => {
    const bomb = bytesToText(gzipSync(Buffer.alloc(11 * 1024 * 1024)));
    expect(fails('gzip_decode(bomb)', { bomb }).kind).toBe('limit');
  });
});

describe('zlib and deflate', () => {
  it("decompresses Go's zlib output (vector from nuclei's documentation)", () => {
    expect(evaluate('zlib_decode(hex_decode("789cf248cdc9c907040000ffff058c01f5"))')).toBe('Hello');
  });

  it('round-trips through zlib and raw deflate', () => {
    expect(evaluate('zlib_decode(zlib("Hello"))')).toBe('Hello');
    expect((evaluate('hex_encode(zlib("Hello"))') as string).slice(0, 4)).toBe('789c');
    expect(evaluate('inflate(deflate("Hello"))')).toBe('Hello');
  });

  it('fails on data that is not compressed', () => {
    expect(fails('zlib_decode("xyz")').kind).toBe('argument');
  });
});
