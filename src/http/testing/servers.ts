/**
 * Real servers on 127.0.0.1 (ephemeral ports) for the transport tests: a raw TCP server that records
 * the bytes it receives and answers with whatever bytes a test scripts, node:http and node:https
 * servers that count their connections, and a self-signed certificate made with openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpRequest } from '../message.js';

export interface Running {
  readonly port: number;
  close(): Promise<void>;
}

async function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return address.port;
}

function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

export interface RawServer extends Running {
  /** Every request head received, in order (bytes up to and including the blank line, as text). */
  readonly heads: string[];
  /** Every byte received, per connection. */
  readonly received: Buffer[][];
  readonly connections: () => number;
}

/**
 * A TCP server that calls `respond` with each request head it receives (and the socket to answer
 * on); request bodies announced by Content-Length are read before `respond` is called.
 */
export async function rawServer(
  respond: (head: string, socket: Socket, body: Buffer) => void,
): Promise<RawServer> {
  const heads: string[] = [];
  const received: Buffer[][] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const log: Buffer[] = [];
    received.push(log);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      log.push(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = pending.subarray(0, end + 4).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const body = pending.subarray(end + 4, end + 4 + length);
        pending = pending.subarray(end + 4 + length);
        heads.push(head);
        respond(head, socket, body);
      }
    });
  });
  const port = await listen(server);
  return { port, heads, received, connections: () => connections, close: closer(server, sockets) };
}

export interface CountingServer extends Running {
  readonly connections: () => number;
  readonly requests: IncomingMessage[];
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A node:http server (or node:https with `tls`) that counts the connections it accepts. */
export async function httpServer(
  handler: Handler,
  tls?: { key: string; cert: string },
): Promise<CountingServer> {
  const requests: IncomingMessage[] = [];
  const wrapped: Handler = (request, response) => {
    requests.push(request);
    handler(request, response);
  };
  const server = tls === undefined ? createHttpServer(wrapped) : createHttpsServer(tls, wrapped);
  server.keepAliveTimeout = 30_000;
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on(tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return { port, requests, connections: () => connections, close: closer(server, sockets) };
}

/** A fresh self-signed certificate for localhost and 127.0.0.1 and its unencrypted key, PEM (Debian's `openssl`). */
export function makeSelfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'keyhole-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let certificate: { key: string; cert: string } | undefined;

/** A self-signed certificate for localhost and 127.0.0.1, made once per test process. */
export function selfSignedCertificate(): { key: string; cert: string } {
  certificate ??= makeSelfSignedCertificate();
  return certificate;
}

/** A GET request for `target` on 127.0.0.1:`port`. */
export function get(port: number, target = '/', headers: HttpRequest['headers'] = []): HttpRequest {
  return { method: 'GET', scheme: 'http', hostname: '127.0.0.1', port, target, headers, body: '' };
}

/** A plain `200 OK` with a body, as raw bytes. */
export function okResponse(body: string, extraHeaders = ''): string {
  return `HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`;
}
