/**
 * A benchmark server in its own process (a child of the benchmark's, with its own event loop), so
 * that the load generator does not slow it down: either the `/v1` API over a store, or a bare
 * Fastify route answering a constant (the baseline). A process rather than a worker thread: the
 * native `re2` addon cannot be loaded again in a thread after another thread that loaded it ended.
 *
 * `KEYHOLE_BENCH_API_PROCESSES=N` (N > 1) serves the API over PostgreSQL from N processes sharing the port, as
 * `keyhole serve --processes N` does: this process forks them (Node's cluster) and answers for
 * all, its own CPU time counted with theirs. The bare route stays one process.
 *
 * Messages: `stop` ends it; `hits` answers `{ served, hits, cpuMicros }`, the responses sent,
 * those the page cache served and the processes' CPU time since the last `hits`.
 */
import cluster, { type Worker } from 'node:cluster';
import Fastify from 'fastify';
import { openStore } from '../../store/index.js';
import { buildApi } from '../server.js';
import { type CacheHits, WORKER_DATA_VARIABLE, type WorkerData } from './protocol.js';

/** `KEYHOLE_BENCH_READ_THREADS=N`: the store's read threads on a SQLite file (see `ConnectOptions.readThreads`). */
const READ_THREADS = Number(process.env.KEYHOLE_BENCH_READ_THREADS ?? 2);
/**
 * `KEYHOLE_BENCH_READ_CONNECTIONS=N`: the connections of each of the store's PostgreSQL pools for
 * listings (see `ConnectOptions.readConnections`); unset, the store's default, as `keyhole serve`.
 */
const READ_CONNECTIONS = process.env.KEYHOLE_BENCH_READ_CONNECTIONS;
const PROCESSES = Number(process.env.KEYHOLE_BENCH_API_PROCESSES ?? 1);
const data = JSON.parse(process.env[WORKER_DATA_VARIABLE] ?? '{"kind":"bare"}') as WorkerData;

// SQLite is served by one process, as `keyhole serve` serves it.
const shared = data.kind === 'api' && data.location.engine === 'postgres' && PROCESSES > 1;
if (shared && cluster.isPrimary) await answerForProcesses(PROCESSES);
else await serve(data);

async function serve(data: WorkerData): Promise<void> {
  const app =
    data.kind === 'bare'
      ? Fastify().get('/bare', async () => ({ message: 'ok' }))
      : await buildApi({
          store: await openStore(data.location, {
            migrate: false,
            readThreads: READ_THREADS,
            ...(READ_CONNECTIONS === undefined ? {} : { readConnections: Number(READ_CONNECTIONS) }),
          }),
          rateLimit: 0,
          cache: data.cache,
        });
  let counts = { served: 0, hits: 0 };
  let cpuSince = process.cpuUsage();
  app.addHook('onSend', async (_request, reply) => {
    counts.served++;
    if (reply.getHeader('x-cache') === 'hit') counts.hits++;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  process.on('message', async (message) => {
    if (message === 'hits') {
      const cpu = process.cpuUsage(cpuSince);
      process.send?.({ hits: { ...counts, cpuMicros: cpu.user + cpu.system } });
      counts = { served: 0, hits: 0 };
      cpuSince = process.cpuUsage();
    }
    if (message === 'stop') {
      await app.close();
      process.exit(0);
    }
  });
}

/** Forks `count` API processes sharing one port and answers the benchmark for them. */
async function answerForProcesses(count: number): Promise<void> {
  const workers = Array.from({ length: count }, () => cluster.fork());
  const ports = await Promise.all(workers.map((worker) => nextMessage<{ port: number }>(worker)));
  let cpuSince = process.cpuUsage();
  process.send?.({ port: ports[0]?.port ?? 0 });
  process.on('message', async (message) => {
    if (message === 'hits') {
      const answers = workers.map((worker) => nextMessage<{ hits: CacheHits }>(worker));
      for (const worker of workers) worker.send('hits');
      const all = (await Promise.all(answers)).map((answer) => answer.hits);
      const own = process.cpuUsage(cpuSince);
      cpuSince = process.cpuUsage();
      process.send?.({
        hits: {
          served: all.reduce((sum, hits) => sum + hits.served, 0),
          hits: all.reduce((sum, hits) => sum + hits.hits, 0),
          cpuMicros: all.reduce((sum, hits) => sum + hits.cpuMicros, own.user + own.system),
        },
      });
    }
    if (message === 'stop') {
      await Promise.all(
        workers.map((worker) => {
          const exited = new Promise((resolve) => worker.once('exit', resolve));
          worker.send('stop');
          return exited;
        }),
      );
      process.exit(0);
    }
  });
}

function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise((resolve) => worker.once('message', (message: T) => resolve(message)));
}
