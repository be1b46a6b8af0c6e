import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import { type CacheHits, WORKER_DATA_VARIABLE, type WorkerData } from './protocol.js';

/** A benchmark server running in a child process (see worker.ts). */
export interface BenchServer {
  readonly url: string;
  /** Responses sent and page-cache hits since the last call. */
  hits(): Promise<CacheHits>;
  stop(): Promise<void>;
}

/**
 * `KEYHOLE_BENCH_CPU_PROF=DIR` runs each API server (not the bare route's) under V8's sampling
 * profiler, which writes a `.cpuprofile` into DIR as the server stops.
 */
const PROFILE_DIR = process.env.KEYHOLE_BENCH_CPU_PROF;

export async function startServer(data: WorkerData): Promise<BenchServer> {
  const profiled = PROFILE_DIR !== undefined && data.kind === 'api';
  const worker = fork(new URL('./worker.js', import.meta.url), {
    env: { ...process.env, [WORKER_DATA_VARIABLE]: JSON.stringify(data) },
    ...(profiled ? { execArgv: [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : {}),
  });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    hits: async () => {
      const answer = new Promise<CacheHits>((resolve) =>
        worker.once('message', (m: { hits: CacheHits }) => resolve(m.hits)),
      );
      worker.send('hits');
      return answer;
    },
    stop: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.send('stop');
      await exited;
    },
  };
}

export interface Load {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly failures: number;
  /** Bytes received per response, headers included. */
  readonly bytes: number;
}

export interface LoadOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Record<string, string>;
  /** The path of each next request; without it every request asks for `url` itself. */
  readonly nextPath?: () => string;
}

/** Loads `url` for `seconds` after a 1 s warm-up. */
export async function load(url: string, options: LoadOptions): Promise<Load> {
  const next = options.nextPath;
  const run = (duration: number) =>
    autocannon({
      url,
      connections: options.connections,
      duration,
      headers: options.headers ?? {},
      ...(next === undefined
        ? {}
        : { requests: [{ setupRequest: (request) => ({ ...request, path: next() }) }] }),
    });
  await run(1);
  const result = await run(options.seconds);
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.errors + result.non2xx,
    bytes: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
  };
}
