import { Worker } from 'node:worker_threads';

/**
 * A server for the benchmarks, run in a worker thread from `source` (which posts its port,
 * and stops on a `'stop'` message), so that it answers beside what is measured.
 */
export async function startWorkerServer(
  source: string,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const worker = new Worker(source, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    port,
    stop: async () => {
      worker.postMessage('stop');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}
