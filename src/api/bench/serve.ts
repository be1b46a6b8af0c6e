import { fork } from 'node:child_process';
import { cpus } from 'node:os';
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
  /**
   * Over the warm-up and the run, per response: the CPU time of this process, which runs the
   * load generator (ms), and the time the machine's cores stood idle (ms, all cores summed).
   * With the server's and the database's CPU they account for the cores' time: what a faster
   * server could still turn into requests.
   */
  readonly loadCpuMs: number;
  readonly idleMs: number;
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
  const cpuBefore = process.cpuUsage();
  const idleBefore = idleCoreMs();
  const warm = await run(1);
  const result = await run(options.seconds);
  const responses = Math.max(1, warm.requests.total + result.requests.total);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    loadCpuMs: (cpu.user + cpu.system) / 1000 / responses,
    idleMs: (idleCoreMs() - idleBefore) / responses,
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.errors + result.non2xx,
    bytes: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
  };
}

/** The time every core of the machine has stood idle since boot, summed, in ms. */
function idleCoreMs(): number {
  return cpus().reduce((sum, core) => sum + core.times.idle, 0);
}
