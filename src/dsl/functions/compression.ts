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
function gzipGo(input: Buffer): Buffer {
  const output = gzipSync(input);
  output[9] = 0xff;
  return output;
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
];
