/**
 * The HTTP client every scan request goes through.
 *
 * Requests go over undici (keep-alive pools per origin, at most `connectionsPerOrigin` connections
 * each) when undici can send them unchanged, and over a one-shot raw socket otherwise. What undici
 * does to a request on the wire, and therefore what decides the path:
 * - the request line is written as given: method, request-target (no normalisation of `..`, `..;`,
 *   `%2e`, `//` or escapes) and `HTTP/1.1`;
 * - `Host` is written first, as `host: <value>` (lower-case name), from the request's Host header or
 *   else from the URL; `Connection` likewise second (`connection: keep-alive` or `close`);
 *   `Content-Length` is written last as `content-length: <n>`, computed from the body;
 * - every other header is written in the request's order with its casing, duplicates kept.
 * A request that undici would refuse or alter beyond that goes over the raw socket byte for byte:
 * a method that is not a token; a target with a space, a control or non-Latin-1 character or not
 * starting with `/` or `http(s)://` (e.g. `*`); a header name that is not a token or a value with
 * CR, LF or other control characters; `Transfer-Encoding`, `Expect`, `Upgrade`, `Keep-Alive`; two
 * `Host` or `Content-Length` headers; a `Content-Length` that differs from the body (or that undici
 * would drop: `0` on a GET); a `Connection` other than `close`/`keep-alive`.
 *
 * Text (target, header values, string bodies) goes out as UTF-8. Nothing is added that the request
 * does not say, apart from the framing headers above: no User-Agent, no Accept-Encoding. Responses
 * are never followed (see redirect.ts) and their bodies are decoded per Content-Encoding within the
 * body cap. Every exchange, on either path, has one deadline covering connect, send, head and body.
 */
import { Agent, type buildConnector, Client, type Dispatcher, Pool } from 'undici';
import { type AbortEntry, AbortWatch } from './aborts.js';
import { type Deadline, Deadlines } from './deadlines.js';
import {
  abortedError,
  describeSocketError,
  type ExchangePhase,
  errorCode,
  TransportError,
  timeoutError,
} from './errors.js';
import type { HttpRequest, Scheme } from './message.js';
import { type ExchangeLimits, exchangeRaw, malformed } from './raw-socket.js';
import { bodyBytes, expectsPayload, originOf, requestUrl, serializeRequest } from './request-bytes.js';
import { assembleResponse, deliver, type HttpResponse, type ResponseHead } from './response.js';
import { ResponseReader } from './response-reader.js';
import { serverName, tlsOptions } from './tls.js';
import { type ExchangeStart, Wire } from './wire.js';

export interface HttpClientOptions {
  /** Deadline of one exchange: connect, send, response head and body (default 10 s, as nuclei). */
  readonly timeoutMs?: number;
  /** Largest body kept, after decoding (default 10 MiB, as nuclei); the rest is not read. */
  readonly maxBodyBytes?: number;
  /** Keep-alive connections per origin (default 25). */
  readonly connectionsPerOrigin?: number;
  /** Verify TLS certificates (default false: scanners talk to hosts with any certificate). */
  readonly verifyTls?: boolean;
}

export interface SendOptions {
  readonly timeoutMs?: number;
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
  /** TLS server name (SNI) to present, e.g. for `@tls-sni`; default: the host name (none for IPs). */
  readonly tlsServerName?: string;
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
const maxHeaderBytes = 256 * 1024;

export class HttpClient {
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly verifyTls: boolean;
  private readonly agent: Agent;
  private readonly deadlines: Deadlines;
  /** Origins whose responses undici's strict parser refused: their requests go over the raw socket. */
  private readonly lenientOrigins = new Set<string>();

  constructor(options: HttpClientOptions = {}) {
    this.timeoutMs = positive(options.timeoutMs, defaultTimeoutMs, 'timeoutMs');
    this.maxBodyBytes = positive(options.maxBodyBytes, defaultMaxBodyBytes, 'maxBodyBytes');
    this.verifyTls = options.verifyTls ?? false;
    const connections = positive(options.connectionsPerOrigin, 25, 'connectionsPerOrigin');
    this.deadlines = new Deadlines(Math.min(100, Math.max(10, this.timeoutMs / 10)));
    this.agent = new Agent({
      connect: { ...tlsOptions(this.verifyTls), timeout: this.timeoutMs },
      maxHeaderSize: maxHeaderBytes,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      factory: (origin, agentOptions) =>
        new Pool(origin, {
          ...agentOptions,
          connections,
          factory: (poolOrigin, clientOptions) => this.wiredClient(poolOrigin, clientOptions),
        }),
    });
  }

  /** Sends a request: over a pooled connection when undici can send it unchanged, else raw. */
  readonly send: Send = (request, options = {}) => {
    const url = requestUrl(request);
    const limits = this.limits(options);
    const invalid = invalidTarget(request);
    if (invalid !== undefined) return Promise.reject(new TransportError('invalid-request', url, invalid));
    const origin = originOf(request);
    const form = undiciForm(request);
    if (typeof form === 'string' || this.lenientOrigins.has(origin)) {
      return exchangeRaw(request, serializeRequest(request), url, limits);
    }
    // Always the same TLS name for the same host, so undici does not reconnect between requests with
    // and without a Host header (left to itself, it derives the name from the Host header).
    const where: Where = { origin, url, servername: limits.serverName ?? serverName(request.hostname) };
    const deadline = performance.now() + limits.timeoutMs;
    return new Promise((resolve, reject) => {
      this.dispatch(where, form, limits, deadline, resolve, (error) => {
        if (!(error instanceof StaleConnection)) reject(error);
        // The server closed an idle keep-alive connection as we reused it: the request never reached
        // it, so send it once more on a fresh connection (as Go's transport does).
        else this.dispatch(where, form, limits, deadline, resolve, reject);
      });
    });
  };

  /** Sends an `unsafe` request's bytes as given on a fresh connection. */
  sendRaw(request: RawHttpRequest, options: SendOptions = {}): Promise<HttpResponse> {
    const bytes = bodyBytes(request.bytes);
    const target = requestLineTarget(bytes);
    const url = requestUrl({ ...request, target });
    const invalid = invalidTarget(request);
    if (invalid !== undefined) return Promise.reject(new TransportError('invalid-request', url, invalid));
    return exchangeRaw(request, bytes, url, this.limits(options));
  }

  /** Closes every connection; requests still running fail. */
  async close(): Promise<void> {
    this.deadlines.stop();
    await this.agent.destroy();
  }

  private limits(options: SendOptions): ExchangeLimits {
    return {
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? this.maxBodyBytes,
      verifyTls: this.verifyTls,
      signal: options.signal,
      serverName: options.tlsServerName,
    };
  }

  /** Runs one attempt of an exchange on a pooled connection; settles through `resolve`/`reject`. */
  private dispatch(
    where: Where,
    form: UndiciForm,
    limits: ExchangeLimits,
    deadline: number,
    resolve: (response: HttpResponse) => void,
    reject: (error: Error) => void,
  ): void {
    const remaining = Math.max(1, Math.ceil(deadline - performance.now()));
    const exchange = new PoolExchange(
      where.url,
      form.method,
      limits,
      remaining,
      this.deadlines,
      this.lenientOrigins,
      where.origin,
      resolve,
      reject,
    );
    const options: ExchangeDispatch = {
      origin: where.origin,
      method: form.method,
      path: form.path,
      headers: form.headers,
      body: form.body,
      headersTimeout: remaining,
      bodyTimeout: remaining,
      servername: where.servername,
      [exchangeKey]: exchange,
    };
    exchange.start();
    this.agent.dispatch(options, exchange);
  }

  /** An undici Client whose connections are watched by a Wire, known to the exchanges it runs. */
  private wiredClient(origin: URL, options: object): Dispatcher {
    const wire = new Wire();
    const base = (options as { connect: buildConnector.connector }).connect;
    const client = new Client(origin, { ...(options as Client.Options), connect: wire.connector(base) });
    const dispatch = client.dispatch.bind(client);
    client.dispatch = (dispatchOptions: ExchangeDispatch, handler) => {
      dispatchOptions[exchangeKey]?.attach(wire);
      return dispatch(dispatchOptions, handler);
    };
    return client;
  }
}

/**
 * Dispatch options as the client sends them. undici passes the same options object from the agent
 * through the pool to the connection's client, so the exchange rides along on it and the client
 * that runs it can attach its wire. (undici also reads `servername`, which its types do not list.)
 */
const exchangeKey = Symbol('exchange');

interface Where {
  readonly origin: string;
  readonly url: string;
  readonly servername: string | undefined;
}

type ExchangeDispatch = Dispatcher.DispatchOptions & {
  servername?: string | undefined;
  [exchangeKey]?: PoolExchange;
};

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

interface UndiciForm {
  readonly method: string;
  readonly path: string;
  readonly headers: string[];
  readonly body: Buffer | null;
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const undiciPath = /^(?:\/|https?:\/\/)[\x21-\xff]*$/;
const undiciHeaderValue = /^[\t\x20-\x7e\x80-\xff]*$/;
const refusedHeaders = new Set(['transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** undici writes strings as Latin-1; UTF-8 text is handed over as its bytes, one char per byte. */
function wireText(text: string): string {
  return /[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text;
}

/**
 * The request as undici dispatch options, or why undici cannot send it unchanged (see the module
 * comment); pure, so the routing rule is testable on its own.
 */
export function undiciForm(request: HttpRequest): UndiciForm | string {
  const method = wireText(request.method);
  if (!token.test(method)) return 'method is not an HTTP token';
  const path = wireText(request.target);
  if (!undiciPath.test(path)) return 'request-target undici would refuse';
  const body = bodyBytes(request.body);
  const headers: string[] = [];
  let hosts = 0;
  let lengths = 0;
  let connections = 0;
  let framing: string | undefined;
  for (const [name, rawValue] of request.headers) {
    // A token is ASCII, so a name that is one goes out as it is.
    if (!token.test(name)) return `header name ${JSON.stringify(name)} is not a token`;
    const value = wireText(rawValue);
    if (!undiciHeaderValue.test(value)) return `header ${name} has control characters`;
    const lower = name.toLowerCase();
    if (refusedHeaders.has(lower)) return `header ${name} is refused by undici`;
    if (lower === 'host') hosts += 1;
    else if (lower === 'connection') {
      connections += 1;
      framing ??= connectionRefusal(rawValue);
    } else if (lower === 'content-length') {
      lengths += 1;
      framing ??= lengthRefusal(request.method, rawValue, body.length);
    }
    headers.push(name, value);
  }
  if (hosts > 1 || lengths > 1 || connections > 1) {
    return 'duplicated Host, Content-Length or Connection header';
  }
  if (framing !== undefined) return framing;
  return { method, path, headers, body: body.length > 0 ? body : null };
}

function connectionRefusal(value: string): string | undefined {
  const option = value.trim().toLowerCase();
  return option === 'close' || option === 'keep-alive'
    ? undefined
    : 'Connection header other than close or keep-alive';
}

function lengthRefusal(method: string, value: string, bodyLength: number): string | undefined {
  const length = value.trim();
  if (!/^\d+$/.test(length) || Number(length) !== bodyLength) return 'Content-Length differs from the body';
  if (bodyLength === 0 && !expectsPayload(method)) return 'Content-Length undici would drop';
  return undefined;
}

/** Raised instead of a result when a reused keep-alive connection turned out closed by the server. */
class StaleConnection extends Error {}

const staleCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
const cutShortCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/** undici's parser refused the response (llhttp is stricter than the servers scanners meet). */
function parserRefused(error: Error): boolean {
  return (
    error.name === 'HTTPParserError' ||
    errorCode(error) === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    error.message === 'bad response'
  );
}

/**
 * One request on a pooled connection, as an undici dispatch handler. It implements undici's
 * handler callbacks of the core (`onConnect`, `onHeaders`, `onData`, `onComplete`, `onError`):
 * a handler of the controller kind (`onRequestStart`, …) is wrapped by undici in an adapter that
 * allocates a controller and turns the raw response headers and trailers into objects on every
 * request, which the exchange does not read (it keeps the head as received). undici's types mark
 * the core callbacks deprecated; a version that drops them needs the controller kind back.
 */
class PoolExchange implements Dispatcher.DispatchHandler {
  private wire: Wire | undefined;
  private abortRequest: ((error: Error) => void) | undefined;
  private started: ExchangeStart | undefined;
  private head: ResponseHead | undefined;
  private readonly chunks: Buffer[] = [];
  private bodySize = 0;
  private settled = false;
  private failure: Error | undefined;
  private deadline: Deadline | undefined;
  private abortEntry: AbortEntry | undefined;
  private readonly startedAt = performance.now();

  /**
   * `limits` are the caller's, `timeoutMs` what is left of the deadline for this attempt; an origin
   * whose response undici's parser refuses is added to `lenientOrigins`.
   */
  constructor(
    private readonly url: string,
    private readonly method: string,
    private readonly limits: ExchangeLimits,
    private readonly timeoutMs: number,
    private readonly deadlines: Deadlines,
    private readonly lenientOrigins: Set<string>,
    private readonly origin: string,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  start(): void {
    const { signal } = this.limits;
    if (signal?.aborted) {
      this.fail(abortedError(this.url, signal.reason));
      return;
    }
    if (signal !== undefined) this.abortEntry = AbortWatch.add(signal, this.onAbort);
    this.deadline = this.deadlines.add(this.timeoutMs, this.onTimeout);
  }

  attach(wire: Wire): void {
    this.wire = wire;
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortRequest = abort;
    if (this.failure !== undefined) {
      abort(this.failure);
      return;
    }
    this.started = this.wire?.begin();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, statusText: string): boolean {
    if (statusCode < 200 && statusCode !== 101) return true;
    const recorded = this.wire?.takeHead();
    this.head =
      recorded?.statusCode === statusCode ? recorded : headFromUndici(statusCode, statusText, rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    const room = this.limits.maxBodyBytes - this.bodySize;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.bodySize += chunk.length;
      return true;
    }
    this.chunks.push(chunk.subarray(0, room));
    this.bodySize += room;
    this.complete(true);
    // The rest of the body is not wanted: drop the connection rather than read it.
    this.abortRequest?.(new Error('body cap reached'));
    return true;
  }

  onComplete(): void {
    this.complete(false);
  }

  onError(error: Error): void {
    if (this.settled) return;
    const code = errorCode(error);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      this.onTimeout();
    } else if (this.head !== undefined && code !== undefined && cutShortCodes.has(code)) {
      // The connection closed in the middle of the body: keep what arrived.
      this.complete(true);
    } else if (this.head === undefined && parserRefused(error)) {
      this.readLeniently(error);
    } else if (
      this.head === undefined &&
      this.started?.reused === true &&
      code !== undefined &&
      staleCodes.has(code)
    ) {
      this.fail(new StaleConnection());
    } else {
      this.fail(describeSocketError(this.url, error, this.head !== undefined));
    }
  }

  private readonly onAbort = (reason: unknown): void => this.fail(abortedError(this.url, reason));

  private readonly onTimeout = (): void =>
    this.fail(timeoutError(this.url, this.limits.timeoutMs, this.phase()));

  /**
   * undici's parser refused the response: read the bytes that arrived with the lenient reader
   * instead (the server has answered; sending the request again could repeat its effect), and
   * have later requests to this origin go over the raw socket.
   */
  private readLeniently(error: Error): void {
    this.lenientOrigins.add(this.origin);
    const reader = new ResponseReader(this.method, this.limits.maxBodyBytes);
    let done: boolean;
    try {
      done = reader.feed(this.wire?.takeRecorded() ?? Buffer.alloc(0));
    } catch (refusal) {
      this.fail(malformed(this.url, refusal));
      return;
    }
    if (reader.head === undefined) {
      this.fail(describeSocketError(this.url, error, false));
      return;
    }
    this.head = reader.head;
    this.chunks.push(reader.body());
    this.bodySize = this.chunks[0]?.length ?? 0;
    this.complete(reader.truncatedAtCap || (!done && reader.closed()));
  }

  private phase(): ExchangePhase {
    if (this.head !== undefined) return 'reading the body';
    return this.started === undefined ? 'connecting' : 'waiting for the response head';
  }

  private complete(truncated: boolean): void {
    const head = this.head;
    if (this.settled || head === undefined) return;
    this.finish();
    const body =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.bodySize);
    const facts = {
      url: this.url,
      startedAt: this.startedAt,
      remoteAddress: this.started?.remoteAddress,
      maxBodyBytes: this.limits.maxBodyBytes,
    };
    deliver(assembleResponse(head, body, truncated, facts), this.resolve, this.reject);
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.finish();
    this.failure = error;
    this.abortRequest?.(error);
    this.reject(error);
  }

  private finish(): void {
    this.settled = true;
    this.deadlines.cancel(this.deadline);
    const { signal } = this.limits;
    if (signal !== undefined) AbortWatch.remove(signal, this.abortEntry);
  }
}

/** A response head rebuilt from what undici reports, for when the wire did not record one. */
function headFromUndici(statusCode: number, reason: string, rawHeaders: readonly Buffer[]): ResponseHead {
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    headers.push([String(rawHeaders[i]), String(rawHeaders[i + 1])]);
  }
  const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const rawHead = `HTTP/1.1 ${statusCode} ${reason}\r\n${lines}\r\n`;
  return {
    httpVersion: 'HTTP/1.1',
    statusCode,
    reason,
    headers,
    rawHead,
    rawHeadBytes: Buffer.from(rawHead, 'utf8'),
  };
}
