import type { FastifyInstance } from 'fastify';
import { formatBytes } from '../../source/index.js';
import { ApiError } from '../errors.js';

/**
 * The largest body an upload request may have: twice the 4 MiB chunks nuclei and httpx send, so
 * their uploads always pass while a runaway client is stopped at a size the server holds easily.
 */
export const MAX_UPLOAD_BYTES = 8 << 20;

function tooLarge(): ApiError {
  return new ApiError(
    413,
    'payload_too_large',
    `the body is over the limit of ${formatBytes(MAX_UPLOAD_BYTES)} per request; send a larger file in parts: the first with POST, the rest appended with PATCH (nuclei and httpx send 4 MiB at a time)`,
  );
}

/**
 * Makes the routes of `app` (an encapsulated plugin) read their body as bytes, whatever its
 * Content-Type (nuclei and httpx send `application/octet-stream`, curl `--data-binary` sends
 * `application/x-www-form-urlencoded`): never through the JSON parser, and up to
 * {@link MAX_UPLOAD_BYTES} instead of the API's 16 KB. A larger body is refused from its
 * Content-Length before it is read, or as soon as it has arrived past the limit.
 */
export function acceptRawBodies(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES) throw tooLarge();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    payload.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_UPLOAD_BYTES) {
        refused = true;
        chunks.length = 0;
        done(tooLarge(), undefined);
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => {
      if (!refused) done(null, Buffer.concat(chunks, size));
    });
    payload.on('error', (error) => {
      if (!refused) done(error, undefined);
    });
  });
}

/** The body {@link acceptRawBodies} read; an empty one when the request had none. */
export function bodyBytes(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}
