/**
 * Keep-alive connections, per origin, for the client's exchanges. Written for the client rather
 * than taken from an HTTP library because the client writes each request's bytes itself and reads
 * every response with its own lenient reader (see response-reader.ts): what it needs from a pool is
 * only sockets, at most `perOrigin` busy or idle per origin, handed out in order.
 *
 * A connection's socket listeners are set once and forward to whichever exchange uses it, so an
 * exchange adds no listener of its own. Idle connections are reused most recent first (the least
 * likely to have been closed by the server), closed after `idleMs`, and at most `maxIdle` are kept
 * across all origins (the oldest goes first): a scan touches thousands of hosts once each.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { Scheme } from './message.js';
import { type ProxyServer, TunnelSocket } from './proxy.js';
import { tlsOptions } from './tls.js';

/** Where a connection goes: scheme, host, port and the TLS server name it presents. */
export interface Endpoint {
  readonly scheme: Scheme;
  readonly hostname: string;
  readonly port: number;
  /** TLS server name (SNI); none for IP literals. */
  readonly serverName: string | undefined;
}

/** What uses a connection: it hears the socket's bytes and its end. */
export interface ConnectionUser {
  onData(chunk: Buffer): void;
  /** The socket closed while in use; `error` when it failed. */
  onClose(error: Error | undefined): void;
}

/** Waits for a connection of an origin; `granted` or `refused` is called once, unless cancelled first. */
export interface Lease {
  cancelled: boolean;
  granted(connection: Connection): void;
  refused(reason: Error): void;
}

export class Connection {
  user: ConnectionUser | undefined;
  /** Exchanges started on this connection, the current one included. */
  uses = 0;
  connected = false;
  remoteAddress: string | undefined;
  idleSince = 0;
  private failure: Error | undefined;
  private closed = false;
  private outgoing: Buffer | string | undefined;

  constructor(
    readonly socket: Socket | TunnelSocket,
    private readonly origin: OriginPool | undefined,
    secure: boolean,
  ) {
    socket.setNoDelay(true);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      this.connected = true;
      this.remoteAddress = socket.remoteAddress;
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.user !== undefined && this.outgoing === undefined) this.user.onData(chunk);
      // Bytes nobody asked for (on an idle connection, or before the request went out): the server
      // is out of step with this connection. Its exchange, if any, starts again on a fresh one.
      else socket.destroy();
    });
    socket.on('error', (error) => {
      this.failure ??= error;
    });
    socket.on('close', () => this.onClose());
  }

  /** True when an earlier exchange ran on this connection. */
  get reused(): boolean {
    return this.uses > 1;
  }

  /** Takes the connection for one exchange. */
  take(user: ConnectionUser): void {
    this.user = user;
    this.uses += 1;
  }

  /** Writes a request's bytes once the current turn of the event loop has read what arrived. */
  send(bytes: Buffer | string): void {
    this.outgoing = bytes;
    if (outbox.length === 0) setImmediate(flushOutbox);
    outbox.push(this);
  }

  /** @internal */
  flush(): void {
    const bytes = this.outgoing;
    this.outgoing = undefined;
    if (bytes !== undefined && !this.socket.destroyed) this.socket.write(bytes);
  }

  /** Gives the connection back: kept for the next exchange when `reusable`, else closed. */
  release(reusable: boolean): void {
    this.user = undefined;
    if (reusable && this.origin !== undefined && !this.closed) this.origin.putBack(this);
    else this.destroy();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Closes the connection; the exchange using it hears `reason`. */
  abandon(reason: Error): void {
    this.failure ??= reason;
    this.socket.destroy();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    const user = this.user;
    this.user = undefined;
    this.origin?.forget(this);
    user?.onClose(this.failure);
  }
}

/**
 * Connections with a request to write. Writes wait for the end of the event loop's turn (as
 * undici's do): when responses arrive on many connections at once, the next requests then go out
 * together after all of them were read, and on loopback fewer writes each pay for waking the
 * server up; measured, about 2 µs less CPU per keep-alive request than writing at once.
 */
let outbox: Connection[] = [];

function flushOutbox(): void {
  const writing = outbox;
  outbox = [];
  for (const connection of writing) connection.flush();
}

/** How the client's connections are opened: its TLS verification setting, and its proxy if any. */
export interface Dialing {
  readonly verifyTls: boolean;
  readonly proxy: ProxyServer | undefined;
}

/** Opens a socket to an endpoint (TCP, or TLS with the client's verification setting), through the proxy if any. */
function openSocket(endpoint: Endpoint, dialing: Dialing): Socket | TunnelSocket {
  const { hostname: host, port } = endpoint;
  const tunnel = dialing.proxy === undefined ? undefined : new TunnelSocket(dialing.proxy, host, port);
  if (endpoint.scheme !== 'https') return tunnel ?? connectTcp({ host, port });
  return connectTls({
    ...(tunnel === undefined ? { host, port } : { socket: tunnel }),
    servername: endpoint.serverName,
    ALPNProtocols: ['http/1.1'],
    ...tlsOptions(dialing.verifyTls),
  });
}

/** A connection used for one exchange and closed after it (unsafe requests and unusual framing). */
export function oneShotConnection(endpoint: Endpoint, dialing: Dialing): Connection {
  return new Connection(openSocket(endpoint, dialing), undefined, endpoint.scheme === 'https');
}

export interface PoolOptions {
  readonly perOrigin: number;
  readonly maxIdle: number;
  readonly idleMs: number;
  readonly dialing: Dialing;
}

export class ConnectionPool {
  /**
   * Origins by host name, then by scheme, port and TLS name: a lookup per request builds no key
   * string (most hosts have one origin, so the list is one long).
   */
  private readonly origins = new Map<string, OriginPool[]>();
  private closed = false;
  /** Every idle connection, oldest first. */
  readonly idle = new Set<Connection>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(readonly options: PoolOptions) {}

  /**
   * Grants `lease` a connection to `endpoint`: an idle one, a new one when the origin has room, or
   * the next one given back. `fresh` opens a new connection whatever the origin holds (the one
   * retry after a reused connection turned out closed).
   */
  lease(endpoint: Endpoint, lease: Lease, fresh = false): void {
    if (this.closed) {
      lease.refused(new Error('the client is closed'));
      return;
    }
    this.origin(endpoint).lease(lease, fresh);
  }

  private origin(endpoint: Endpoint): OriginPool {
    let sameHost = this.origins.get(endpoint.hostname);
    if (sameHost === undefined) {
      sameHost = [];
      this.origins.set(endpoint.hostname, sameHost);
    }
    for (const known of sameHost) if (known.serves(endpoint)) return known;
    const origin = new OriginPool(this, endpoint);
    sameHost.push(origin);
    return origin;
  }

  /** Closes every connection, idle or busy (their exchanges fail), and drops waiting leases. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const sameHost of this.origins.values()) for (const origin of sameHost) origin.close();
    this.origins.clear();
    this.idle.clear();
  }

  /** @internal Called by an origin when it holds no connection and no lease. */
  dropOrigin(origin: OriginPool): void {
    const sameHost = this.origins.get(origin.endpoint.hostname);
    if (sameHost === undefined) return;
    const rest = sameHost.filter((known) => known !== origin);
    if (rest.length === 0) this.origins.delete(origin.endpoint.hostname);
    else this.origins.set(origin.endpoint.hostname, rest);
  }

  /** @internal An idle connection was added; the oldest goes when there are too many. */
  addIdle(connection: Connection): void {
    this.idle.add(connection);
    if (this.idle.size > this.options.maxIdle) {
      const oldest = this.idle.values().next().value;
      if (oldest !== undefined) {
        this.idle.delete(oldest);
        oldest.destroy();
      }
    }
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(1000, this.options.idleMs));
      this.sweeper.unref();
    }
  }

  private sweep(): void {
    const cutoff = performance.now() - this.options.idleMs;
    for (const connection of this.idle) {
      if (connection.idleSince > cutoff) break;
      this.idle.delete(connection);
      connection.destroy();
    }
    if (this.idle.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}

/** The connections of one origin and the leases waiting for one. */
class OriginPool {
  private readonly connections = new Set<Connection>();
  /** Idle connections of this origin, most recently used last. */
  private readonly idle: Connection[] = [];
  private readonly waiting: Lease[] = [];
  private waitingHead = 0;

  constructor(
    private readonly pool: ConnectionPool,
    readonly endpoint: Endpoint,
  ) {}

  serves(endpoint: Endpoint): boolean {
    const own = this.endpoint;
    return (
      own.port === endpoint.port && own.scheme === endpoint.scheme && own.serverName === endpoint.serverName
    );
  }

  lease(lease: Lease, fresh: boolean): void {
    if (!fresh) {
      for (let idle = this.idle.pop(); idle !== undefined; idle = this.idle.pop()) {
        this.pool.idle.delete(idle);
        // Closed by the idle limits, its close event not yet in.
        if (idle.socket.destroyed) continue;
        lease.granted(idle);
        return;
      }
    }
    if (fresh || this.connections.size < this.pool.options.perOrigin) {
      lease.granted(this.open());
      return;
    }
    this.waiting.push(lease);
  }

  putBack(connection: Connection): void {
    const next = this.nextLease();
    if (next !== undefined) {
      next.granted(connection);
      return;
    }
    connection.idleSince = performance.now();
    this.idle.push(connection);
    this.pool.addIdle(connection);
  }

  /** A connection closed: its place goes to the next waiting lease, if any. */
  forget(connection: Connection): void {
    this.connections.delete(connection);
    this.pool.idle.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
    const next = this.nextLease();
    if (next !== undefined) next.granted(this.open());
    else if (this.connections.size === 0) this.pool.dropOrigin(this);
  }

  close(): void {
    const closed = new Error('the client is closed');
    for (let lease = this.nextLease(); lease !== undefined; lease = this.nextLease()) lease.refused(closed);
    for (const connection of [...this.connections]) connection.abandon(closed);
  }

  private open(): Connection {
    const { endpoint } = this;
    const socket = openSocket(endpoint, this.pool.options.dialing);
    const connection = new Connection(socket, this, endpoint.scheme === 'https');
    this.connections.add(connection);
    return connection;
  }

  private nextLease(): Lease | undefined {
    while (this.waitingHead < this.waiting.length) {
      const lease = this.waiting[this.waitingHead];
      this.waiting[this.waitingHead] = undefined as unknown as Lease;
      this.waitingHead += 1;
      if (this.waitingHead === this.waiting.length) {
        this.waiting.length = 0;
        this.waitingHead = 0;
      }
      if (lease !== undefined && !lease.cancelled) return lease;
    }
    return undefined;
  }
}
