import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openStore, type Store } from '../../store/index.js';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { RateCounts } from '../rate-counts.js';
import { buildApi } from '../server.js';

export interface RunningApi {
  readonly url: string;
  readonly app: FastifyInstance;
  get(
    path: string,
    key?: string,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON that the assertions inspect.
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** The response as sent, bytes untouched (fetch would decompress them). */
  raw(path: string, headers?: Record<string, string>, method?: 'GET' | 'HEAD'): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A store open on a test database, with the API served over it. */
export interface ServedDatabase {
  readonly database: TestDatabase;
  readonly store: Store;
  readonly api: RunningApi;
  /** Stops the API, closes the store and drops the database. */
  close(): Promise<void>;
}

/** Opens a store on `database` and serves the API over it; on a failure, undoes what was done. */
export async function serveDatabase(
  database: TestDatabase,
  options: Parameters<typeof serveApi>[1] = {},
): Promise<ServedDatabase> {
  let store: Store | undefined;
  try {
    store = await openStore(database.location);
    const api = await serveApi(store, options);
    const opened = store;
    return {
      database,
      store,
      api,
      async close() {
        await api.close();
        await opened.close();
        await database.drop();
      },
    };
  } catch (error) {
    await store?.close();
    await database.drop();
    throw error;
  }
}

/** The API over a real socket on 127.0.0.1 (ephemeral port). */
export async function serveApi(
  store: Store,
  options: { rateLimit?: number; rateCounts?: RateCounts; logger?: Logger; cache?: boolean } = {},
): Promise<RunningApi> {
  const app = await buildApi({
    store,
    rateLimit: options.rateLimit ?? 0,
    ...(options.rateCounts ? { rateCounts: options.rateCounts } : {}),
    cache: options.cache ?? true,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    app,
    async get(path, key, headers = {}) {
      const response = await fetch(url + path, {
        headers: { ...(key === undefined ? {} : { 'X-API-Key': key }), ...headers },
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the assertion on the body shows it
      }
      return { status: response.status, body, headers: response.headers };
    },
    raw: (path, headers = {}, method = 'GET') => rawRequest(url + path, headers, method),
    close: () => app.close(),
  };
}

function rawRequest(url: string, headers: Record<string, string>, method: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** A response read off a socket, as sent. */
export interface SocketResponse {
  readonly statusLine: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends `text` as it is on a fresh connection to 127.0.0.1:`port` and reads until the server
 * closes it (or `quietMs` pass without a byte): for requests no HTTP client would send.
 */
export function sendOnSocket(port: number, text: string, quietMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const done = () => {
      socket.destroy();
      resolve(received);
    };
    let timer = setTimeout(done, quietMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while the rest of an oversized request is still being written.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.write(text);
  });
}

/** The responses in what {@link sendOnSocket} received, one after another (each with a Content-Length). */
export function parseResponses(received: string): SocketResponse[] {
  const responses: SocketResponse[] = [];
  let rest = received;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) throw new Error(`no end of the head in ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    // One character of `received` per byte.
    const bodyEnd = headEnd + 4 + Number(headers['content-length'] ?? 0);
    const body = Buffer.from(rest.slice(headEnd + 4, bodyEnd), 'latin1').toString('utf8');
    responses.push({ statusLine, headers, body });
    rest = rest.slice(bodyEnd);
  }
  return responses;
}
