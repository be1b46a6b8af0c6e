/**
 * Real HTTP servers for scan tests, one per loopback name: `127.0.0.1`, `127.0.0.2` and `localhost`
 * are three distinct hosts to the secret file (each server is bound to its own address, on an
 * ephemeral port). Every request is recorded as it arrived, with its head and body as text, so a
 * test can look for a secret anywhere in what a host received.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  /** The request-target as sent. */
  readonly target: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  readonly body: string;
  /** Request line, header lines as received (original casing) and body. */
  readonly raw: string;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string;
  /** Answer after this long (or never, with `Infinity`). */
  readonly delayMs?: number;
}

export type Handler = (request: SeenRequest, host: TestHost) => Reply | Promise<Reply>;

export interface TestHost {
  /** The name targets use: `127.0.0.1`, `127.0.0.2` or `localhost`. */
  readonly name: string;
  readonly port: number;
  /** `http://<name>:<port>` */
  readonly origin: string;
  /** `<name>:<port>`: the host as secret files match it. */
  readonly authority: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export const LOOPBACK_NAMES = ['127.0.0.1', '127.0.0.2', 'localhost'] as const;

export async function startHost(name: string, handler: Handler): Promise<TestHost> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let host: TestHost | undefined;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const seen = seenRequest(incoming, Buffer.concat(chunks).toString('utf8'));
      requests.push(seen);
      void Promise.resolve(handler(seen, host as TestHost)).then((reply) => {
        const send = () => {
          if (outgoing.destroyed) return;
          outgoing.statusCode = reply.status ?? 200;
          for (const [header, value] of Object.entries(reply.headers ?? {}))
            outgoing.setHeader(header, typeof value === 'string' ? value : [...value]);
          if (!outgoing.hasHeader('content-type')) outgoing.setHeader('Content-Type', 'text/plain');
          outgoing.end(reply.body ?? '');
        };
        if (reply.delayMs === undefined) send();
        else if (Number.isFinite(reply.delayMs)) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            send();
          }, reply.delayMs);
          timers.add(timer);
        }
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, name, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('test host has no port');
  host = {
    name,
    port: address.port,
    origin: `http://${name}:${address.port}`,
    authority: `${name}:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return host;
}

/** The three loopback hosts, each with its own handler. */
export async function startHosts(handler: Handler): Promise<TestHost[]> {
  return Promise.all(LOOPBACK_NAMES.map((name) => startHost(name, handler)));
}

function seenRequest(incoming: IncomingMessage, body: string): SeenRequest {
  const target = incoming.url ?? '/';
  const question = target.indexOf('?');
  const headers: Record<string, string> = {};
  let head = `${incoming.method} ${target} HTTP/${incoming.httpVersion}\r\n`;
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    const name = incoming.rawHeaders[i] ?? '';
    const value = incoming.rawHeaders[i + 1] ?? '';
    head += `${name}: ${value}\r\n`;
    const lower = name.toLowerCase();
    const separator = lower === 'cookie' ? '; ' : ', ';
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}${separator}${value}`;
  }
  const cookies: Record<string, string> = {};
  for (const pair of (headers.cookie ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0) cookies[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return {
    method: incoming.method ?? 'GET',
    target,
    path: question < 0 ? target : target.slice(0, question),
    query: new URLSearchParams(question < 0 ? '' : target.slice(question + 1)),
    headers,
    cookies,
    body,
    raw: `${head}\r\n${body}`,
  };
}
