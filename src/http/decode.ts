import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

export interface Decoded {
  readonly body: Buffer;
  readonly truncated: boolean;
}

type Coding = 'gzip' | 'deflate' | 'br';

/**
 * The codings of a Content-Encoding value, in the order they were applied, or undefined when one of
 * them is not one we can undo (the body is then kept as received).
 */
export function parseContentEncoding(value: string | undefined): Coding[] | undefined {
  if (value === undefined) return [];
  const codings: Coding[] = [];
  for (const token of value.split(',')) {
    const coding = token.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'deflate' || coding === 'br') codings.push(coding);
    else return undefined;
  }
  return codings;
}

/**
 * Undoes the Content-Encoding of a body, producing at most `cap` bytes: a decompression bomb costs
 * no more memory than the cap, and the stream is stopped as soon as the cap is reached. A body that
 * does not decode is returned as received, so matchers still see what the server sent.
 */
export async function decodeBody(
  body: Buffer,
  contentEncoding: string | undefined,
  cap: number,
): Promise<Decoded> {
  const codings = parseContentEncoding(contentEncoding);
  if (codings === undefined || codings.length === 0 || body.length === 0) return { body, truncated: false };
  let current: Decoded = { body, truncated: false };
  for (const coding of codings.toReversed()) {
    try {
      const next = await inflate(current.body, coding, cap);
      current = { body: next.body, truncated: current.truncated || next.truncated };
    } catch {
      return { body, truncated: false };
    }
  }
  return current;
}

function decompressor(coding: Coding, input: Buffer) {
  if (coding === 'br') return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
  if (coding === 'gzip') return createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
  // "deflate" is meant to be zlib-wrapped, but many servers send raw deflate: tell them apart by the
  // zlib header (compression method 8 and a header checksum divisible by 31).
  const first = input[0] ?? 0;
  const second = input[1] ?? 0;
  const zlibWrapped = (first & 0x0f) === 8 && ((first << 8) | second) % 31 === 0;
  return zlibWrapped
    ? createInflate({ finishFlush: constants.Z_SYNC_FLUSH })
    : createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH });
}

function inflate(input: Buffer, coding: Coding, cap: number): Promise<Decoded> {
  const stream = decompressor(coding, input);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      resolve({ body: Buffer.concat(chunks, size), truncated });
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = cap - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = cap;
        finish(true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on('end', () => finish(false));
    stream.on('error', (error) => {
      // Trailing garbage after a valid stream: keep what decoded.
      if (size > 0) finish(false);
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    stream.end(input);
  });
}
