/**
 * An HTTP server on 127.0.0.1 standing in for a third-party service (what public_ip and llm_prompt
 * ask), for tests. It runs on a worker thread of its own, since those helpers block the calling
 * thread while they wait for the answer, and it records the requests it gets.
 */
import { Worker } from 'node:worker_threads';

export interface StandInAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/**
 * The server, run on the worker thread: written without references outside itself, since only its
 * text reaches the worker. Answers by path (404 for others), posts the bound port, then answers the
 * parent's request for what it recorded.
 */
function serve(
  require: NodeJS.Require,
  answers: Readonly<Record<string, StandInAnswer>>,
  parent: import('node:worker_threads').MessagePort,
): void {
  const { createServer } = require('node:http') as typeof import('node:http');
  const recorded: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      recorded.push({
        method: request.method ?? '',
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const answer = answers[path] ?? { status: 404, body: 'not found' };
      setTimeout(() => {
        response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' });
        response.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    parent.postMessage({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  parent.on('message', () => parent.postMessage({ recorded }));
}

export interface StandIn {
  /** `http://127.0.0.1:port`. */
  readonly origin: string;
  /** The requests the server got so far. */
  requests(): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

export async function startStandIn(answers: Readonly<Record<string, StandInAnswer>>): Promise<StandIn> {
  const source = `
const __name = (f) => f;
const { workerData, parentPort } = require('node:worker_threads');
(${serve.toString()})(require, workerData, parentPort);
`;
  const worker = new Worker(source, { eval: true, workerData: answers });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const { port } = await next<{ port: number }>();
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: async () => {
      const answer = next<{ recorded: RecordedRequest[] }>();
      worker.postMessage('requests');
      return (await answer).recorded;
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/** The stand-ins a test file starts, closed together (after each test). */
export class StandIns {
  private readonly started: StandIn[] = [];

  async start(answers: Readonly<Record<string, StandInAnswer>>): Promise<StandIn> {
    const standIn = await startStandIn(answers);
    this.started.push(standIn);
    return standIn;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.started.splice(0).map((standIn) => standIn.close()));
  }
}
