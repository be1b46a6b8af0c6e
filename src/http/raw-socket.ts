/**
 * Sends bytes exactly as given over a fresh TCP or TLS connection and reads one HTTP/1.x response
 * from it with the lenient ResponseReader. This is the path for `unsafe: true` requests, for
 * requests undici would refuse or rewrite, and for hosts whose responses undici's parser refuses.
 * The connection is closed after the response.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { type AbortEntry, AbortWatch } from './aborts.js';
import {
  abortedError,
  describeSocketError,
  type ExchangePhase,
  TransportError,
  timeoutError,
} from './errors.js';
import type { Scheme } from './message.js';
import { assembleResponse, deliver, type HttpResponse, MalformedHeadError } from './response.js';
import { MalformedBodyError, ResponseReader } from './response-reader.js';
import { serverName, tlsOptions } from './tls.js';

export interface RawTarget {
  readonly scheme: Scheme;
  readonly hostname: string;
  readonly port: number;
}

export interface ExchangeLimits {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly verifyTls: boolean;
  readonly signal?: AbortSignal | undefined;
  /** TLS server name to present instead of the host name. */
  readonly serverName?: string | undefined;
}

export function exchangeRaw(
  target: RawTarget,
  bytes: Buffer,
  url: string,
  limits: ExchangeLimits,
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    new RawExchange(target, bytes, url, limits, resolve, reject).start();
  });
}

/** The method of a raw request: its first token. HEAD responses carry no body. */
export function methodOf(bytes: Buffer): string {
  const end = bytes.subarray(0, 64).findIndex((byte) => byte === 0x20 || byte === 0x0d || byte === 0x0a);
  return bytes.subarray(0, end === -1 ? Math.min(bytes.length, 64) : end).toString('latin1');
}

/** Turns a reader's complaint into the error an exchange reports, or rethrows anything else. */
export function malformed(url: string, error: unknown): TransportError {
  if (error instanceof MalformedHeadError || error instanceof MalformedBodyError) {
    return new TransportError('malformed-response', url, `malformed response: ${error.message}`);
  }
  throw error;
}

class RawExchange {
  private socket: Socket | undefined;
  private sent = false;
  private settled = false;
  private readonly reader: ResponseReader;
  private remoteAddress: string | undefined;
  private readonly startedAt = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private abortEntry: AbortEntry | undefined;
  private readonly onAbort = () => this.fail(abortedError(this.url, this.limits.signal?.reason));

  constructor(
    private readonly target: RawTarget,
    private readonly bytes: Buffer,
    private readonly url: string,
    private readonly limits: ExchangeLimits,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.reader = new ResponseReader(methodOf(bytes), limits.maxBodyBytes);
  }

  start(): void {
    const { signal } = this.limits;
    if (signal?.aborted) {
      this.fail(abortedError(this.url, signal.reason));
      return;
    }
    if (signal !== undefined) this.abortEntry = AbortWatch.add(signal, this.onAbort);
    this.timer = setTimeout(
      () => this.fail(timeoutError(this.url, this.limits.timeoutMs, this.phase())),
      this.limits.timeoutMs,
    );
    const { hostname, port } = this.target;
    const socket =
      this.target.scheme === 'https'
        ? connectTls({
            host: hostname,
            port,
            servername: this.limits.serverName ?? serverName(hostname),
            ALPNProtocols: ['http/1.1'],
            ...tlsOptions(this.limits.verifyTls),
          })
        : connectTcp({ host: hostname, port });
    this.socket = socket;
    socket.once(this.target.scheme === 'https' ? 'secureConnect' : 'connect', () => {
      this.remoteAddress = socket.remoteAddress;
      socket.write(this.bytes, () => {
        this.sent = true;
      });
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.onClosed(error));
    socket.on('close', () => this.onClosed(undefined));
  }

  private phase(): ExchangePhase {
    if (this.reader.head !== undefined) return 'reading the body';
    if (this.sent) return 'waiting for the response head';
    return this.remoteAddress === undefined ? 'connecting' : 'sending';
  }

  private onData(chunk: Buffer): void {
    if (this.settled) return;
    let done: boolean;
    try {
      done = this.reader.feed(chunk);
    } catch (error) {
      this.fail(malformed(this.url, error));
      return;
    }
    if (done) this.complete(false);
  }

  private onClosed(error: Error | undefined): void {
    if (this.settled) return;
    if (this.reader.head !== undefined) {
      this.complete(this.reader.closed());
    } else if (error !== undefined) {
      this.fail(describeSocketError(this.url, error, false));
    } else if (this.reader.started) {
      this.fail(
        new TransportError(
          'malformed-response',
          this.url,
          'malformed response: connection closed inside the head',
        ),
      );
    } else {
      this.fail(
        new TransportError('connection-lost', this.url, 'the server closed the connection without answering'),
      );
    }
  }

  private complete(cutShort: boolean): void {
    const head = this.reader.head;
    if (this.settled || head === undefined) return;
    this.finish();
    const facts = {
      url: this.url,
      startedAt: this.startedAt,
      remoteAddress: this.remoteAddress,
      maxBodyBytes: this.limits.maxBodyBytes,
    };
    deliver(
      assembleResponse(head, this.reader.body(), cutShort || this.reader.truncatedAtCap, facts),
      this.resolve,
      this.reject,
    );
  }

  private fail(error: TransportError): void {
    if (this.settled) return;
    this.finish();
    this.reject(error);
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    const { signal } = this.limits;
    if (signal !== undefined) AbortWatch.remove(signal, this.abortEntry);
    this.socket?.destroy();
  }
}
