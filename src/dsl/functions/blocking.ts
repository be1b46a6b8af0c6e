/**
 * Runs asynchronous work (network calls) to completion from synchronous code. Expressions are
 * evaluated synchronously, as nuclei's are: the work runs on a worker thread while the calling thread
 * waits for its result, as nuclei's goroutine waits for its network calls.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

export type Outcome<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'failed'; readonly code: string }
  | { readonly kind: 'timed-out' };

/**
 * Calls `work(input, require)` on a worker thread and waits for its result, at most `timeoutMs`.
 * `work` must not reference anything outside itself: only its text reaches the worker. A rejection
 * gives the error's `code` (or its name), never its message, which may quote the input.
 */
export function runBlocking<I, T>(
  work: (input: I, require: NodeJS.Require) => Promise<T>,
  input: I,
  timeoutMs: number,
): Outcome<T> {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(workerSource(work.toString()), {
    eval: true,
    workerData: { port: port2, signal, input },
    transferList: [port2],
  });
  const waited = Atomics.wait(signal, 0, 0, timeoutMs);
  const message = receiveMessageOnPort(port1)?.message as Outcome<T> | undefined;
  void worker.terminate();
  port1.close();
  if (waited === 'timed-out' || message === undefined) return { kind: 'timed-out' };
  return message;
}

function workerSource(work: string): string {
  return `
const __name = (f) => f;
const { workerData } = require('node:worker_threads');
const { port, signal, input } = workerData;
(${work})(input, require).then(
  (value) => port.postMessage({ kind: 'done', value }),
  (error) => port.postMessage({ kind: 'failed', code: String(error?.code ?? error?.name ?? 'Error') }),
).finally(() => {
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;
}
