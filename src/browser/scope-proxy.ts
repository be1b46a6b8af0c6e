import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Where the browser wants to connect. */
export interface BrowserDestination {
  readonly scheme: 'http' | 'https';
  readonly hostname: string;
  readonly port: number;
}

export interface ScopeProxyOptions {
  /** Whether the browser may reach a destination. */
  readonly allowed: (to: BrowserDestination) => boolean;
  /** Told of every connection refused. */
  readonly onRefused: (to: BrowserDestination) => void;
  /** Opens a connection to a destination (directly, or through keyhole's -proxy). */
  readonly connect?: (hostname: string, port: number) => Duplex;
}

/**
 * The browser's only way out: an HTTP proxy on loopback that Chromium must use for every
 * connection (plain requests, TLS tunnels, WebSockets, the redirects it follows on its own, which
 * request interception never sees). A destination outside the scope gets no connection at all.
 */
export class ScopeProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();

  private constructor(private readonly options: ScopeProxyOptions) {
    this.server = createServer((req, res) => this.forward(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.tunnel(req, socket, head),
    );
    this.server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => this.refuseSocket(socket));
    this.server.on('connection', (socket: Socket) => this.track(socket));
  }

  static async start(options: ScopeProxyOptions): Promise<ScopeProxy> {
    const proxy = new ScopeProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The proxy's address, as Chromium's `--proxy-server` takes it. */
  get url(): string {
    const address = this.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private open(hostname: string, port: number): Duplex {
    const socket = this.options.connect?.(hostname, port) ?? netConnect(port, hostname);
    this.track(socket);
    return socket;
  }

  /** A plain http request, written with its absolute URL. */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const to: BrowserDestination = {
      scheme: 'http',
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? 80 : Number(url.port),
    };
    if (url.protocol !== 'http:' || !this.options.allowed(to)) {
      this.options.onRefused(to);
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('refused: outside the scope of the login');
      return;
    }
    const pairs = pairsOf(req.rawHeaders).filter(([name]) => !isProxyHeader(name));
    const upstream = httpRequest({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: pairs.flat(),
      createConnection: () => this.open(to.hostname, to.port) as Socket,
      setHost: false,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  /** A `CONNECT host:port` (https, wss): the tunnel opened only within the scope. */
  private tunnel(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.track(socket);
    const target = hostPort(req.url ?? '');
    const asHttps: BrowserDestination | undefined =
      target === undefined ? undefined : { scheme: 'https', ...target };
    // A WebSocket to ws://host:80 is tunnelled too: either reading of the port may allow it.
    const asHttp: BrowserDestination | undefined =
      target === undefined ? undefined : { scheme: 'http', ...target };
    if (
      asHttps === undefined ||
      asHttp === undefined ||
      !(this.options.allowed(asHttps) || this.options.allowed(asHttp))
    ) {
      if (asHttps !== undefined) this.options.onRefused(asHttps);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = this.open(asHttps.hostname, asHttps.port);
    const ready = () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    };
    upstream.once('connect', ready);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  }

  private refuseSocket(socket: Duplex): void {
    this.track(socket);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  }
}

function isProxyHeader(name: string): boolean {
  return /^proxy-/i.test(name);
}

function pairsOf(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return pairs;
}

function hostPort(authority: string): { hostname: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (!(port >= 1 && port <= 65535)) return undefined;
  return { hostname: (match[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase(), port };
}
