import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { TlsCertificate } from './certificate.js';
import { readPublicKey } from './crypto.js';
import type { Interaction } from './protocol.js';
import type { Recorder } from './recorder.js';
import type { Registry } from './registry.js';

const MAX_BODY = 1 << 20;

export interface HttpListenerOptions {
  readonly registry: Registry;
  readonly recorder: Recorder;
  /** When set, the API answers only requests whose `Authorization` header is this token. */
  readonly token?: string;
  /**
   * Said in the answer to a registration, so a client given only the listener's address (`-iserver
   * http://10.0.0.5`) names callbacks under the domain; interactsh clients ignore it.
   */
  readonly domain: string;
}

/**
 * One HTTP server for both sides of the protocol: clients register, poll and deregister; targets
 * call back on a name under the domain (or a path that carries a callback label, for targets that
 * reach the listener by address), and each callback is recorded for the client that made the name.
 */
export function createHttpListener(options: HttpListenerOptions): Server {
  return createServer(handler(options));
}

/** The same listener over TLS: interactsh records HTTPS callbacks as `http` interactions too. */
export function createHttpsListener(options: HttpListenerOptions, certificate: TlsCertificate): TlsServer {
  return createTlsServer({ cert: certificate.cert, key: certificate.key }, handler(options));
}

function handler(options: HttpListenerOptions): RequestListener {
  return (req, res) => {
    readBody(req)
      .then((body) => answer(options, req, res, body))
      .catch(() => {
        if (!res.headersSent) res.writeHead(400);
        res.end();
      });
  };
}

async function answer(options: HttpListenerOptions, req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const url = new URL(req.url ?? '/', 'http://listener');
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (!options.recorder.namesCallback(host) && isApiPath(url.pathname)) {
    api(options, url, req, res, body);
    return;
  }
  const responseBody = callbackBody(host, url);
  const rawResponse = `HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${responseBody}`;
  const named = options.recorder.namesCallback(host) ? host : `${url.pathname}${url.search}`;
  options.recorder.record(
    named,
    (ids): Interaction => ({
      protocol: 'http',
      'unique-id': ids.uniqueId,
      'full-id': ids.fullId,
      'raw-request': rawRequest(req, body),
      'raw-response': rawResponse,
      'remote-address': remoteAddress(req),
      timestamp: new Date().toISOString(),
    }),
  );
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(responseBody);
}

function isApiPath(path: string): boolean {
  return path === '/register' || path === '/deregister' || path === '/poll';
}

function api(
  options: HttpListenerOptions,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): void {
  if (options.token !== undefined && req.headers.authorization !== options.token) {
    reply(res, 401, { error: 'missing or wrong token in the Authorization header' });
    return;
  }
  const registry = options.registry;
  if (url.pathname === '/poll' && req.method === 'GET') {
    const outcome = registry.poll(url.searchParams.get('id') ?? '', url.searchParams.get('secret') ?? '');
    reply(res, outcome.ok ? 200 : outcome.status, outcome.ok ? outcome.value : { error: outcome.message });
    return;
  }
  if (req.method !== 'POST') {
    reply(res, 405, { error: `${url.pathname} takes POST` });
    return;
  }
  const fields = jsonObject(body);
  const correlationId = text(fields?.['correlation-id']);
  const secret = text(fields?.['secret-key']);
  if (correlationId === '' || secret === '') {
    reply(res, 400, { error: 'the body must be JSON with "correlation-id" and "secret-key"' });
    return;
  }
  if (url.pathname === '/deregister') {
    const outcome = registry.deregister(correlationId, secret);
    reply(
      res,
      outcome.ok ? 200 : outcome.status,
      outcome.ok ? { message: 'deregistration successful' } : { error: outcome.message },
    );
    return;
  }
  const publicKey = readPublicKey(text(fields?.['public-key']));
  if (publicKey === undefined) {
    reply(res, 400, { error: '"public-key" must be base64 of an RSA public key in PEM' });
    return;
  }
  const outcome = registry.register(correlationId, secret, publicKey);
  reply(
    res,
    outcome.ok ? 200 : outcome.status,
    outcome.ok ? { message: 'registration successful', domain: options.domain } : { error: outcome.message },
  );
}

function reply(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** As interactsh answers: the first callback label, reversed, so a template may check the echo. */
function callbackBody(host: string, url: URL): string {
  const label = /[0-9a-z]{33,}/.exec(`${host.toLowerCase()} ${url.pathname.toLowerCase()}`)?.[0] ?? '';
  return `<html><head></head><body>${[...label].reverse().join('')}</body></html>`;
}

function rawRequest(req: IncomingMessage, body: Buffer): string {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n${body.toString('utf8')}`;
}

function remoteAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
