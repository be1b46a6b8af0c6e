import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How a listing route renders its page: through the server's page cache (kept per team and URL
 * under the store's change token, gzipped when large) when it is on, directly otherwise. `live`
 * says the page shows something still changing (a running scan), which is kept only briefly.
 */
export type PageRenderer = <T>(
  request: FastifyRequest,
  reply: FastifyReply,
  read: () => Promise<{ payload: T | JsonText; live: boolean }>,
) => Promise<T | string | Buffer>;

/**
 * A body already serialised, as text or UTF-8 bytes (its schema's serialiser is skipped): what a
 * page built from stored JSON, or written by SQLite, returns.
 */
export class JsonText {
  constructor(readonly text: string | Buffer) {}
}

/** A body of `head` (a JSON object up to its list's opening bracket), `items` and the closing `]}`, as bytes. */
export function jsonList(head: string, items: Buffer): JsonText {
  return new JsonText(Buffer.concat([Buffer.from(head), items, LIST_END]));
}

const LIST_END = Buffer.from(']}');
