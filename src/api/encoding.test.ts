import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, GZIP_MIN_BYTES, gzipPage } from './encoding.js';

describe('acceptsGzip', () => {
  it.each([
    'gzip',
    'GZip',
    'x-gzip',
    '*',
    'gzip, deflate, br',
    'deflate, gzip;q=0.5',
    'gzip;Q=0.001',
    'gzip ; q=1.000',
    '*;q=0.1',
    'br;q=1, *;q=0.5',
    'gzip;q=0, gzip;q=1',
  ])('accepts gzip for "%s"', (header) => {
    expect(acceptsGzip(header)).toBe(true);
  });

  it.each([
    '',
    'identity',
    'br, deflate',
    'gzip;q=0',
    'gzip;q=0.000',
    'GZIP; Q=0',
    '*;q=0',
    '*, gzip;q=0',
    'gzip;q=2',
    'gzip;q=abc',
    'gzipped',
  ])('refuses gzip for "%s"', (header) => {
    expect(acceptsGzip(header)).toBe(false);
  });

  it('refuses gzip without the header and reads repeated headers as one list', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(['br', 'gzip'])).toBe(true);
  });
});

describe('gzipPage', () => {
  it('compresses a page of a kilobyte or more to bytes that gunzip to it', async () => {
    const page = Buffer.from(JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i })) }));
    const gzipped = await gzipPage(page);
    expect(page.length).toBeGreaterThanOrEqual(GZIP_MIN_BYTES);
    expect(gzipped && gunzipSync(gzipped).equals(page)).toBe(true);
  });

  it('leaves a smaller page alone', async () => {
    expect(await gzipPage(Buffer.alloc(GZIP_MIN_BYTES - 1, 'a'))).toBeUndefined();
  });
});
