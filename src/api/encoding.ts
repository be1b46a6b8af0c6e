import { gzip } from 'node:zlib';

/** Below this a page is sent as is: gzip's header and the CPU would outweigh the bytes saved. */
export const GZIP_MIN_BYTES = 1024;

/**
 * zlib level for cached pages. Measured on pages of 100 retest results (155–167 KB): levels 1–3
 * take the same time (1.2–1.3 ms on varied text, 0.3 ms on the benchmark's repetitive pages),
 * level 3 being 3–25 % smaller than level 1; level 4 costs 1.3–2 times as much for 3 % less, and
 * level 6 twice as much for 6 % less. A page is compressed once per rendering, so bytes matter
 * more than CPU, up to the point where the rendering itself slows.
 */
export const GZIP_LEVEL = 3;

/**
 * The body gzipped (in libuv's thread pool, so the event loop keeps serving), or undefined when
 * it is too small to be worth it.
 *
 * Pages are compressed here once per cached page rather than by @fastify/compress, which
 * compresses every response again: for a cached 155 KB page that is a millisecond of CPU per
 * request, more than serving the page costs.
 */
export function gzipPage(body: Buffer): Promise<Buffer | undefined> {
  if (body.length < GZIP_MIN_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    gzip(body, { level: GZIP_LEVEL }, (error, result) => (error === null ? resolve(result) : reject(error)));
  });
}

/**
 * Whether an `Accept-Encoding` header allows gzip (RFC 9110, section 12.5.3): `gzip` (or
 * `x-gzip`) with a non-zero weight, or else `*` with a non-zero weight. Names are
 * case-insensitive; `gzip;q=0` refuses it even when `*` is accepted. No header: identity.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let gzipWeight: number | undefined;
  let anyWeight: number | undefined;
  for (const element of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = element.split(';');
    const coding = name.trim().toLowerCase();
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue;
    const weight = weightOf(params);
    if (coding === '*') anyWeight = weight;
    else gzipWeight = Math.max(gzipWeight ?? 0, weight);
  }
  return (gzipWeight ?? anyWeight ?? 0) > 0;
}

/** The `q` parameter's value (1 when absent); an unreadable weight counts as 0, identity being always safe. */
function weightOf(params: readonly string[]): number {
  for (const param of params) {
    const [key = '', value = ''] = param.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    const text = value.trim();
    return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text) ? Number(text) : 0;
  }
  return 1;
}
