/**
 * A benchmark server in its own thread (its own event loop, as a separate process would have),
 * so that the load generator in the main thread does not slow it down: either the `/v1` API over
 * a store, or a bare Fastify route answering a constant (the baseline).
 *
 * Messages: `stop` ends it; `hits` answers `{ served, hits }`, the responses sent and those the
 * page cache served since the last `hits`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Fastify from 'fastify';
import { openStore, type StoreLocation } from '../../store/index.js';
import { buildApi } from '../server.js';

export type WorkerData =
  | { readonly kind: 'bare' }
  | { readonly kind: 'api'; readonly location: StoreLocation; readonly cache: boolean };

export interface CacheHits {
  readonly served: number;
  readonly hits: number;
}

const data = workerData as WorkerData;
const app =
  data.kind === 'bare'
    ? Fastify().get('/bare', async () => ({ message: 'ok' }))
    : await buildApi({
        store: await openStore(data.location, { migrate: false, poolSize: 10 }),
        rateLimit: 0,
        cache: data.cache,
      });
let counts = { served: 0, hits: 0 };
app.addHook('onSend', async (_request, reply) => {
  counts.served++;
  if (reply.getHeader('x-cache') === 'hit') counts.hits++;
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
parentPort?.postMessage({ port: typeof address === 'object' && address !== null ? address.port : 0 });
parentPort?.on('message', async (message) => {
  if (message === 'hits') {
    parentPort?.postMessage({ hits: counts });
    counts = { served: 0, hits: 0 };
  }
  if (message === 'stop') {
    await app.close();
    process.exit(0);
  }
});
