/**
 * Watches the connection of one undici Client (one socket at a time, one request at a time) to learn
 * what undici does not report: the response head exactly as received (status line with the HTTP
 * version, header lines as written), the peer address, and whether the connection was reused.
 *
 * undici reads its sockets in paused mode (`'readable'` + `read()`); a `'data'` listener added after
 * that sees every chunk as `read()` returns it, synchronously before undici parses it, so by the time
 * undici reports the response head, the recorder holds its bytes.
 */
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { type ResponseHead, takeFinalHead } from './response.js';

export interface ExchangeStart {
  readonly remoteAddress: string | undefined;
  /** True when the connection already carried an earlier exchange. */
  readonly reused: boolean;
}

/** Bytes recorded per exchange at most; undici refuses heads larger than its own limit first. */
const maxRecorded = 1024 * 1024;

export class Wire {
  private socket: Socket | undefined;
  private readonly tapped = new WeakSet<Socket>();
  private exchangesOnSocket = 0;
  private recording = false;
  private received: Buffer[] = [];
  private receivedBytes = 0;
  private readonly tap = (chunk: Buffer) => {
    if (!this.recording) return;
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    if (this.receivedBytes > maxRecorded) this.stop();
  };

  /** Wraps undici's connector so that every socket of this client is known to the recorder. */
  connector(base: buildConnector.connector): buildConnector.connector {
    return (options, callback) => {
      base(options, (...args) => {
        const [error, socket] = args;
        if (error === null) {
          this.socket = socket;
          this.exchangesOnSocket = 0;
        }
        callback(...args);
      });
    };
  }

  /** Called when undici is about to write a request on this client's socket. */
  begin(): ExchangeStart {
    const socket = this.socket;
    if (socket !== undefined && !this.tapped.has(socket)) {
      this.tapped.add(socket);
      socket.on('data', this.tap);
    }
    this.received = [];
    this.receivedBytes = 0;
    this.recording = true;
    this.exchangesOnSocket += 1;
    return { remoteAddress: socket?.remoteAddress, reused: this.exchangesOnSocket > 1 };
  }

  /** The final response head of the current exchange, once undici has reported it. */
  takeHead(): ResponseHead | undefined {
    try {
      return takeFinalHead(this.takeRecorded())?.head;
    } catch {
      return undefined;
    }
  }

  /** Every byte received in the current exchange so far (to read it when undici's parser gave up). */
  takeRecorded(): Buffer {
    const bytes =
      this.received.length === 1
        ? (this.received[0] as Buffer)
        : Buffer.concat(this.received, this.receivedBytes);
    this.stop();
    return bytes;
  }

  private stop(): void {
    this.recording = false;
    this.received = [];
    this.receivedBytes = 0;
  }
}
