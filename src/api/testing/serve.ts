import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openStore, type Store } from '../../store/index.js';
import type { TestDatabase } from '../../store/testing/databases.js';
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
  options: { rateLimit?: number; logger?: Logger; cache?: boolean } = {},
): Promise<RunningApi> {
  const app = await buildApi({
    store,
    rateLimit: options.rateLimit ?? 0,
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
