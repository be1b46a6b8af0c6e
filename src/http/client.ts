/**
 * The HTTP client every scan request goes through.
 *
 * A request goes out as its bytes (see request-bytes.ts): the request line and headers exactly as
 * the request has them, in order and casing, plus `Host` first and `Content-Length` last when it
 * does not set them; text as UTF-8. Nothing else is added: no User-Agent, no Accept-Encoding, no
 * `Connection`. Every response is read by the lenient ResponseReader, which keeps the head exactly
 * as received and accepts what real servers send; responses are never followed (see redirect.ts)
 * and their bodies are decoded per Content-Encoding within the body cap. Every exchange has one
 * deadline covering connect, send, head and body.
 *
 * Requests go over keep-alive connections, at most `connectionsPerOrigin` per origin, when their
 * framing keeps the connection in step. A request that could leave it out of step (a method that
 * is not a token; a target or header with spaces or line breaks where HTTP forbids them;
 * `Transfer-Encoding`, `Expect`, `Upgrade`; two `Host` headers; a `Content-Length` that differs
 * from the body or appears twice; `Connection` other than `keep-alive`) and every `unsafe` request get a connection
 * of their own, closed after the response: their bytes are sent as given all the same.
 */
import type { SendBudget } from './budget.js';
import { ConnectionPool, type Dialing, type Endpoint } from './connection-pool.js';
import { Deadlines } from './deadlines.js';
import { TransportError } from './errors.js';
import { type HttpRequest, isHeaderName, type Scheme } from './message.js';
import type { ProxyServer } from './proxy.js';
import type { RaceGate } from './race-gate.js';
import { bodyBytes, requestUrl, requestWireForm } from './request-bytes.js';
import type { HttpResponse } from './response.js';
import { type ConnectionSource, type ExchangeLimits, runExchange } from './socket-exchange.js';
import { serverName } from './tls.js';

export interface HttpClientOptions {
  /** Deadline of one exchange: connect, send, response head and body (default 10 s, as nuclei). */
  readonly timeoutMs?: number;
  /** Largest body kept, after decoding (default 10 MiB, as nuclei); the rest is not read. */
  readonly maxBodyBytes?: number;
  /** Keep-alive connections per origin (default 25). */
  readonly connectionsPerOrigin?: number;
  /** Verify TLS certificates (default false: scanners talk to hosts with any certificate). */
  readonly verifyTls?: boolean;
  /** Every connection through this proxy (see proxy.ts); none by default. */
  readonly proxy?: ProxyServer | undefined;
  /** How long an idle keep-alive connection is kept (default 4 s, as undici and most servers). */
  readonly idleMs?: number;
  /** Idle keep-alive connections kept across all origins, the oldest closed first (default 256). */
  readonly maxIdleConnections?: number;
}

export interface SendOptions {
  readonly timeoutMs?: number | undefined;
  readonly maxBodyBytes?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** TLS server name (SNI) to present, e.g. for `@tls-sni`; default: the host name (none for IPs). */
  readonly tlsServerName?: string;
  /** Time on the wire this send shares with the other sends of its exchange (a redirect chain). */
  readonly budget?: SendBudget;
  /** A race: the request goes on a connection of its own, its last byte held until the gate opens. */
  readonly race?: RaceGate | undefined;
}

/** Sends one request and resolves with its response; the shape the engine, limits and redirects share. */
export type Send = (request: HttpRequest, options?: SendOptions) => Promise<HttpResponse>;

/** An `unsafe: true` request: bytes sent exactly as given to `scheme://hostname:port`. */
export interface RawHttpRequest {
  readonly scheme: Scheme;
  readonly hostname: string;
  readonly port: number;
  readonly bytes: string | Uint8Array;
}

export const defaultTimeoutMs = 10_000;
export const defaultMaxBodyBytes = 10 * 1024 * 1024;

export class HttpClient {
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly dialing: Dialing;
  private readonly pool: ConnectionPool;
  private readonly deadlines: Deadlines;
  private readonly oneShot: ConnectionSource = { oneShot: true };
  private readonly pooled: ConnectionSource;
  private closed = false;

  constructor(options: HttpClientOptions = {}) {
    this.timeoutMs = positive(options.timeoutMs, defaultTimeoutMs, 'timeoutMs');
    this.maxBodyBytes = positive(options.maxBodyBytes, defaultMaxBodyBytes, 'maxBodyBytes');
    this.dialing = { verifyTls: options.verifyTls ?? false, proxy: options.proxy };
    const perOrigin = positive(options.connectionsPerOrigin, 25, 'connectionsPerOrigin');
    this.deadlines = new Deadlines(Math.min(100, Math.max(10, this.timeoutMs / 10)));
    this.pool = new ConnectionPool({
      perOrigin,
      maxIdle: positive(options.maxIdleConnections, 256, 'maxIdleConnections'),
      idleMs: positive(options.idleMs, 4_000, 'idleMs'),
      dialing: this.dialing,
    });
    this.pooled = { pool: this.pool };
  }

  /** Sends a request: over a keep-alive connection when its framing allows, else on one of its own. */
  readonly send: Send = (request, options = {}) => {
    const url = requestUrl(request);
    const invalid = this.closed ? 'the client is closed' : invalidTarget(request);
    if (invalid !== undefined) return Promise.reject(new TransportError('invalid-request', url, invalid));
    const limits = this.limits(options);
    return runExchange({
      endpoint: this.endpoint(request, limits),
      method: request.method,
      bytes: requestWireForm(request),
      url,
      limits,
      source: options.race === undefined && keepsConnectionInStep(request) ? this.pooled : this.oneShot,
      deadlines: this.deadlines,
    });
  };

  /** Sends an `unsafe` request's bytes as given on a connection of its own. */
  sendRaw(request: RawHttpRequest, options: SendOptions = {}): Promise<HttpResponse> {
    const bytes = bodyBytes(request.bytes);
    const target = requestLineTarget(bytes);
    const url = requestUrl({ ...request, target });
    const invalid = this.closed ? 'the client is closed' : invalidTarget(request);
    if (invalid !== undefined) return Promise.reject(new TransportError('invalid-request', url, invalid));
    const limits = this.limits(options);
    return runExchange({
      endpoint: this.endpoint(request, limits),
      method: methodOf(bytes),
      bytes,
      url,
      limits,
      source: this.oneShot,
      deadlines: this.deadlines,
    });
  }

  /** Closes every connection; requests still running fail, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.close();
    this.deadlines.stop();
  }

  private endpoint(
    target: { scheme: Scheme; hostname: string; port: number },
    limits: ExchangeLimits,
  ): Endpoint {
    // Always the same TLS name for the same host, whatever the request's Host header says.
    const name = target.scheme === 'https' ? (limits.serverName ?? serverName(target.hostname)) : undefined;
    return { scheme: target.scheme, hostname: target.hostname, port: target.port, serverName: name };
  }

  private limits(options: SendOptions): ExchangeLimits {
    return {
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? this.maxBodyBytes,
      dialing: this.dialing,
      signal: options.signal,
      serverName: options.tlsServerName,
      budget: options.budget,
      race: options.race,
    };
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

function invalidTarget(request: Pick<HttpRequest, 'hostname' | 'port'>): string | undefined {
  if (!Number.isInteger(request.port) || request.port < 1 || request.port > 65535) {
    return `invalid port ${request.port}`;
  }
  if (request.hostname === '' || /[\s/?#@\\]/.test(request.hostname)) {
    return `invalid host name ${JSON.stringify(request.hostname)}`;
  }
  return undefined;
}

/** The request-target of a raw request's first line (its second token), or `/`. */
function requestLineTarget(bytes: Buffer): string {
  const end = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, end === -1 ? Math.min(bytes.length, 8192) : end).toString('utf8');
  return line.trim().split(/\s+/)[1] ?? '/';
}

/** The method of a raw request: its first token. HEAD responses carry no body. */
export function methodOf(bytes: Buffer): string {
  const end = bytes.subarray(0, 64).findIndex((byte) => byte === 0x20 || byte === 0x0d || byte === 0x0a);
  return bytes.subarray(0, end === -1 ? Math.min(bytes.length, 64) : end).toString('latin1');
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A request-target without spaces or control characters (any other byte may go out as written). */
const plainTarget = /^[^\x00-\x20\x7f]+$/;
/** A header value without line breaks or other control characters but tab. */
const plainValue = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;

/**
 * Header names and values already found to be a token and plain text. The same few (the defaults,
 * a secret, the Host of the target at hand) go out with every request, and a set answers for them
 * faster than the patterns do; it is emptied when full and keeps no long text, so it stays small.
 */
const tokenNames = new Set<string>();
const plainValues = new Set<string>();
const knownLimit = 256;
/** Longer texts are checked each time rather than kept. */
const knownLength = 1024;

function known(found: Set<string>, pattern: RegExp, text: string): boolean {
  if (found.has(text)) return true;
  if (!pattern.test(text)) return false;
  if (text.length > knownLength) return true;
  if (found.size >= knownLimit) found.clear();
  found.add(text);
  return true;
}

/**
 * True when the request frames itself so that the server reads exactly it from the connection and
 * answers once, so the connection can carry the next request; pure, so the rule is testable alone.
 */
export function keepsConnectionInStep(request: HttpRequest): boolean {
  if (!token.test(request.method) || !plainTarget.test(request.target)) return false;
  let lengths = 0;
  let hosts = 0;
  for (const [name, value] of request.headers) {
    if (!known(tokenNames, token, name) || !known(plainValues, plainValue, value)) return false;
    if (
      isHeaderName(name, 'transfer-encoding') ||
      isHeaderName(name, 'upgrade') ||
      isHeaderName(name, 'expect')
    )
      return false;
    if (isHeaderName(name, 'host') && ++hosts > 1) return false;
    if (isHeaderName(name, 'connection') && value.trim().toLowerCase() !== 'keep-alive') return false;
    if (isHeaderName(name, 'content-length')) {
      lengths += 1;
      const length = value.trim();
      if (lengths > 1 || !/^\d+$/.test(length) || Number(length) !== bodyBytes(request.body).length)
        return false;
    }
  }
  return true;
}
