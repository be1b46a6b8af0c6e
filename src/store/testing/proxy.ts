import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 (ephemeral port) in front of a server, that a test can cut and
 * restore: while cut it resets every connection, open or new, as a server gone away would.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;
  private muted = false;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  /** What `from` sends, written to `to` as pipe() would, except while muted (see {@link mute}). */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (data: Buffer) => {
      if (this.muted) return;
      if (!to.write(data)) from.pause();
    });
    to.on('drain', () => from.resume());
    from.on('end', () => to.end());
  }

  /**
   * Drops every byte either way, keeping every connection open, until {@link unmute}: a network
   * gone silent, which neither end notices by itself.
   */
  mute(): void {
    this.muted = true;
  }

  unmute(): void {
    this.muted = false;
  }

  /** Drops every connection and refuses new ones until {@link restore}. */
  cutOff(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.cutOff();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
