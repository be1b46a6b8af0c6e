import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, parseContentEncoding } from './decode.js';

const text = Buffer.from('the quick brown fox '.repeat(50));

describe('decodeBody', () => {
  it('undoes gzip, zlib deflate, raw deflate and br', async () => {
    for (const [coding, encoded] of [
      ['gzip', gzipSync(text)],
      ['x-gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['deflate', deflateRawSync(text)],
      ['br', brotliCompressSync(text)],
    ] as const) {
      expect((await decodeBody(encoded, coding, 1 << 20)).body.equals(text), coding).toBe(true);
    }
  });

  it('undoes stacked codings in reverse order', async () => {
    const encoded = brotliCompressSync(gzipSync(text));
    expect((await decodeBody(encoded, 'gzip, br', 1 << 20)).body.equals(text)).toBe(true);
  });

  it('stops a gzip bomb at the cap and says the body is truncated', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const decoded = await decodeBody(bomb, 'gzip', 1024 * 1024);
    expect(decoded.body.length).toBe(1024 * 1024);
    expect(decoded.truncated).toBe(true);
  });

  it('stops a brotli bomb at the cap', async () => {
    const bomb = brotliCompressSync(Buffer.alloc(64 * 1024 * 1024), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 1 },
    });
    const decoded = await decodeBody(bomb, 'br', 100_000);
    expect(decoded.body.length).toBe(100_000);
    expect(decoded.truncated).toBe(true);
  });

  it('does not call a body that exactly fills the cap truncated', async () => {
    const decoded = await decodeBody(gzipSync(text), 'gzip', text.length);
    expect(decoded).toEqual({ body: text, truncated: false });
  });

  it('keeps what decoded from a compressed body cut short', async () => {
    const encoded = gzipSync(text);
    const decoded = await decodeBody(encoded.subarray(0, encoded.length - 8), 'gzip', 1 << 20);
    expect(decoded.body.equals(text)).toBe(true);
  });

  it('returns a body that does not decode, or uses an unknown coding, as received', async () => {
    const garbage = Buffer.from('not gzip at all');
    expect((await decodeBody(garbage, 'gzip', 1 << 20)).body).toEqual(garbage);
    expect((await decodeBody(garbage, 'zstd', 1 << 20)).body).toEqual(garbage);
  });
});

describe('parseContentEncoding', () => {
  it('lists known codings in order, ignoring identity, and refuses unknown ones', () => {
    expect(parseContentEncoding(' GZIP , identity, br')).toEqual(['gzip', 'br']);
    expect(parseContentEncoding(undefined)).toEqual([]);
    expect(parseContentEncoding('gzip, compress')).toBeUndefined();
  });
});
