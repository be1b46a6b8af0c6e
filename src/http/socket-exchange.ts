/**
 * One request and its response over a connection: the request's bytes are written as given and the
 * response is read with the lenient ResponseReader, under one deadline (connect, send, head and
 * body) and the caller's abort signal. A pooled connection goes back to its pool when the response
 * ended cleanly; a reused one that the server had closed before answering is replaced once by a
 * fresh connection (the request never reached the server, as Go's transport reasons).
 */
import { type AbortEntry, AbortWatch } from './aborts.js';
import type { SendBudget } from './budget.js';
import {
  type Connection,
  type ConnectionPool,
  type ConnectionUser,
  type Dialing,
  type Endpoint,
  type Lease,
  oneShotConnection,
} from './connection-pool.js';
import type { Deadline, Deadlines } from './deadlines.js';
import {
  abortedError,
  bodyCutShortError,
  describeSocketError,
  type ExchangePhase,
  TransportError,
  timeoutError,
} from './errors.js';
import type { RaceGate } from './race-gate.js';
import { assembleResponse, deliver, type HttpResponse, MalformedHeadError } from './response.js';
import { MalformedBodyError, ResponseReader } from './response-reader.js';

export interface ExchangeLimits {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly dialing: Dialing;
  readonly signal?: AbortSignal | undefined;
  /** TLS server name to present instead of the host name. */
  readonly serverName?: string | undefined;
  /** Time this send shares with the other sends of its exchange (see budget.ts). */
  readonly budget?: SendBudget | undefined;
  readonly race?: RaceGate | undefined;
}

/** Where an exchange's connection comes from: a pool, or a connection of its own. */
export type ConnectionSource = { readonly pool: ConnectionPool } | { readonly oneShot: true };

export interface ExchangeSpec {
  readonly endpoint: Endpoint;
  readonly method: string;
  /** The request as it goes out: bytes, or text written as UTF-8. */
  readonly bytes: Buffer | string;
  readonly url: string;
  readonly limits: ExchangeLimits;
  readonly source: ConnectionSource;
  readonly deadlines: Deadlines;
}

/** Sends `spec.bytes` and resolves with the response, or rejects with a TransportError. */
export function runExchange(spec: ExchangeSpec): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    new SocketExchange(spec, resolve, reject).start();
  });
}

/** Turns a reader's complaint into the error an exchange reports, or rethrows anything else. */
export function malformed(url: string, error: unknown): TransportError {
  if (error instanceof MalformedHeadError || error instanceof MalformedBodyError) {
    return new TransportError('malformed-response', url, `malformed response: ${error.message}`);
  }
  throw error;
}

class SocketExchange implements ConnectionUser, Lease {
  cancelled = false;
  private connection: Connection | undefined;
  private reader: ResponseReader;
  private settled = false;
  private retried = false;
  private remoteAddress: string | undefined;
  private deadline: Deadline | undefined;
  private abortEntry: AbortEntry | undefined;
  private readonly startedAt = performance.now();
  /** The deadline of this send: its own, or less when its exchange's shared time runs out first. */
  private allowedMs: number;
  /** In a race: whether this request still has to arrive at the gate. */
  private racing = false;

  constructor(
    private readonly spec: ExchangeSpec,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.reader = new ResponseReader(spec.method, spec.limits.maxBodyBytes);
    this.allowedMs = spec.limits.timeoutMs;
  }

  start(): void {
    const { signal, timeoutMs, budget } = this.spec.limits;
    if (signal?.aborted) {
      this.fail(abortedError(this.spec.url, signal.reason));
      return;
    }
    if (budget !== undefined) {
      const left = budget.left(timeoutMs);
      if (left <= 0) {
        this.fail(exchangeTimeUsedUp(this.spec.url, budget));
        return;
      }
      this.allowedMs = Math.min(timeoutMs, Math.ceil(left));
    }
    if (signal !== undefined) this.abortEntry = AbortWatch.add(signal, this.onAbort);
    this.deadline = this.spec.deadlines.add(this.allowedMs, this.onTimeout);
    this.acquire(false);
  }

  granted(connection: Connection): void {
    if (this.settled) {
      connection.release(true);
      return;
    }
    this.connection = connection;
    connection.take(this);
    const gate = this.spec.limits.race;
    if (gate === undefined || gate.isOpen) connection.send(this.spec.bytes);
    else this.sendAtGate(connection, gate);
  }

  /** Writes all but the last byte, and the last byte once every request of the race is as far. */
  private sendAtGate(connection: Connection, gate: RaceGate): void {
    const bytes = typeof this.spec.bytes === 'string' ? Buffer.from(this.spec.bytes) : this.spec.bytes;
    const cut = Math.max(0, bytes.length - 1);
    this.racing = true;
    connection.socket.write(bytes.subarray(0, cut), (error) => {
      if (!this.racing) return;
      this.racing = false;
      if (error !== undefined && error !== null) {
        gate.withdraw();
        return;
      }
      gate.arrive().then(() => {
        if (this.connection === connection && !connection.socket.destroyed)
          connection.socket.write(bytes.subarray(cut));
      });
    });
  }

  refused(reason: Error): void {
    this.fail(describeSocketError(this.spec.url, reason, false));
  }

  onData(chunk: Buffer): void {
    if (this.settled) return;
    this.remoteAddress ??= this.connection?.remoteAddress;
    let done: boolean;
    try {
      done = this.reader.feed(chunk);
    } catch (error) {
      this.fail(malformed(this.spec.url, error));
      return;
    }
    if (done) this.complete();
  }

  onClose(error: Error | undefined): void {
    const { reader } = this;
    const connection = this.connection;
    this.connection = undefined;
    if (this.settled) return;
    const { url } = this.spec;
    if (reader.head !== undefined) {
      const missing = reader.closed();
      // A body the server ended early is the response nuclei matches: what arrived, marked as cut.
      // A connection reset is a failure in transport, sent again under -retries.
      if (missing === undefined || error === undefined) this.complete(missing);
      else this.fail(bodyCutShortError(url, missing, error));
    } else if (!reader.started && connection?.reused === true && !this.retried) {
      this.retried = true;
      this.acquire(true);
    } else if (error !== undefined) {
      this.fail(describeSocketError(url, error, false));
    } else if (reader.started) {
      this.fail(
        new TransportError(
          'malformed-response',
          url,
          'malformed response: connection closed inside the head',
        ),
      );
    } else {
      this.fail(
        new TransportError('connection-lost', url, 'the server closed the connection without answering'),
      );
    }
  }

  private acquire(fresh: boolean): void {
    const { source, endpoint, limits } = this.spec;
    if ('pool' in source) source.pool.lease(endpoint, this, fresh);
    else this.granted(oneShotConnection(endpoint, limits.dialing));
  }

  private readonly onAbort = (reason: unknown): void => this.fail(abortedError(this.spec.url, reason));

  private readonly onTimeout = (): void => {
    const { url, limits } = this.spec;
    const error = timeoutError(url, this.allowedMs, this.phase());
    if (this.allowedMs >= limits.timeoutMs || limits.budget?.total === undefined) this.fail(error);
    else
      this.fail(
        new TransportError('timeout', url, `${error.detail}: ${sharedTimeText(limits.budget.total)}`),
      );
  };

  private phase(): ExchangePhase {
    if (this.reader.head !== undefined) return 'reading the body';
    if (this.connection?.connected === true) return 'waiting for the response head';
    return 'connecting';
  }

  private complete(cutShort?: string): void {
    const head = this.reader.head;
    if (this.settled || head === undefined) return;
    const connection = this.connection;
    this.connection = undefined;
    this.finish();
    connection?.release(this.reader.reusable && keepsAlive(head.httpVersion, head.headers));
    const facts = {
      url: this.spec.url,
      startedAt: this.startedAt,
      remoteAddress: this.remoteAddress,
      maxBodyBytes: this.spec.limits.maxBodyBytes,
      cutShort,
    };
    deliver(
      assembleResponse(head, this.reader.body(), this.reader.truncatedAtCap, facts),
      this.resolve,
      this.reject,
    );
  }

  private fail(error: TransportError): void {
    if (this.settled) return;
    const connection = this.connection;
    this.connection = undefined;
    this.finish();
    // The connection is mid-exchange: whatever it still carries belongs to this request.
    connection?.destroy();
    this.reject(error);
  }

  private finish(): void {
    if (this.racing) {
      this.racing = false;
      this.spec.limits.race?.withdraw();
    }
    this.settled = true;
    this.cancelled = true;
    this.spec.deadlines.cancel(this.deadline);
    const { signal, budget } = this.spec.limits;
    budget?.spend(performance.now() - this.startedAt);
    if (signal !== undefined) AbortWatch.remove(signal, this.abortEntry);
  }
}

function exchangeTimeUsedUp(url: string, budget: SendBudget): TransportError {
  return new TransportError('timeout', url, `not sent: ${sharedTimeText(budget.total ?? 0)}`);
}

function sharedTimeText(totalMs: number): string {
  return `the request, its redirects and retries took their ${totalMs} ms`;
}

/** HTTP/1.1 keeps the connection unless the response says `close`; HTTP/1.0 only when it says `keep-alive`. */
function keepsAlive(httpVersion: string, headers: readonly (readonly [string, string])[]): boolean {
  let keepAlive = false;
  for (const [name, value] of headers) {
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue;
    for (const option of value.split(',')) {
      const normal = option.trim().toLowerCase();
      if (normal === 'close') return false;
      if (normal === 'keep-alive') keepAlive = true;
    }
  }
  return httpVersion === 'HTTP/1.1' || keepAlive;
}
