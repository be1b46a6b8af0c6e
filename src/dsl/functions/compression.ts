/**
 * Compression helpers of projectdiscovery/dsl. Compressed output decompresses to the same bytes as Go's,
 * though the compressed bytes themselves differ (Go's and zlib's deflaters choose blocks differently).
 * Decompression stops with an error beyond 10 MiB, the dsl library's limit (where Go truncates).
 */
import {
  deflateRawSync,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateRawSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';
import { bytesToText, textToBytes } from '../bytes.js';
import { argumentError, DslEvaluationError } from '../errors.js';
import { fixed, type HelperFunction, textArg } from './helper.js';
import { crc32 } from './zip.js';

const MAX_DECOMPRESSED = 10 * 1024 * 1024;

function compress(code: (input: Buffer) => Buffer): HelperFunction['call'] {
  return (args) => bytesToText(code(textToBytes(textArg(args, 0))));
}

function decompress(
  name: string,
  code: (input: Buffer, options: ZlibOptions) => Buffer,
): HelperFunction['call'] {
  return (args) => {
    try {
      return bytesToText(code(textToBytes(textArg(args, 0)), { maxOutputLength: MAX_DECOMPRESSED }));
    } catch (error) {
      if (error instanceof RangeError) {
        throw new DslEvaluationError(
          `${name}: the decompressed data exceeds ${MAX_DECOMPRESSED} bytes`,
          'limit',
        );
      }
      throw argumentError(name, error instanceof Error ? error.message : 'invalid compressed data');
    }
  };
}

/** Go's gzip.Writer header: no name, no time, OS 255 ("unknown"). */
export function gzipGo(input: Buffer): Buffer {
  const output = gzipSync(input);
  output[9] = 0xff;
  return output;
}

const GZIP_FLAGS = { headerCrc: 0x02, extra: 0x04, name: 0x08, comment: 0x10 } as const;

/**
 * The modification time of gzip data (Unix seconds, 0 when unset), read from its header as Go's
 * gzip.NewReader reads it: the whole header must be there and well formed, the data after it is not
 * looked at.
 */
export function gzipMtime(data: Buffer): number {
  const fail = (why: string) => argumentError('gzip_mtime', why);
  if (data.length < 10 || data[0] !== 0x1f || data[1] !== 0x8b || data[2] !== 8) {
    throw fail('the data is not gzip (gzip: invalid header)');
  }
  const flags = data[3] as number;
  let at = 10;
  if (flags & GZIP_FLAGS.extra) {
    if (data.length < at + 2) throw fail('the gzip header is cut short');
    at += 2 + data.readUInt16LE(at);
  }
  for (const field of [GZIP_FLAGS.name, GZIP_FLAGS.comment]) {
    if (!(flags & field)) continue;
    const end = data.indexOf(0, at);
    if (end < 0) throw fail('the gzip header is cut short');
    at = end + 1;
  }
  if (flags & GZIP_FLAGS.headerCrc) {
    if (data.length < at + 2) throw fail('the gzip header is cut short');
    if ((crc32(data.subarray(0, at)) & 0xffff) !== data.readUInt16LE(at)) throw fail('gzip: invalid header');
  }
  if (data.length < at) throw fail('the gzip header is cut short');
  return data.readUInt32LE(4);
}

export const compressionFunctions: readonly HelperFunction[] = [
  fixed('gzip', 1, compress(gzipGo)),
  fixed('gzip_decode', 1, decompress('gzip_decode', gunzipSync)),
  fixed(
    'zlib',
    1,
    compress((input) => deflateSync(input)),
  ),
  fixed('zlib_decode', 1, decompress('zlib_decode', inflateSync)),
  fixed(
    'deflate',
    1,
    compress((input) => deflateRawSync(input)),
  ),
  fixed('inflate', 1, decompress('inflate', inflateRawSync)),
  fixed('gzip_mtime', 1, (args) => gzipMtime(textToBytes(textArg(args, 0)))),
];
