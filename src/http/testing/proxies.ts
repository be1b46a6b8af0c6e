/**
 * Proxies on 127.0.0.1 for the proxy tests: an HTTP proxy that opens `CONNECT` tunnels, and a
 * SOCKS5 proxy (RFC 1928, with RFC 1929 username/password when asked), each recording the
 * destinations it was asked for and the credentials it was given.
 */
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TestProxy {
  readonly port: number;
  /** `host:port` of every tunnel asked for, in order. */
  readonly tunnels: string[];
  /** The credentials each tunnel came with (`user:password`, or '' without). */
  readonly credentials: string[];
  close(): Promise<void>;
}

/** An HTTP proxy that tunnels `CONNECT`; with `requireAuth` (`user:password`), others get 407. */
export async function connectProxy(requireAuth?: string): Promise<TestProxy> {
  const tunnels: string[] = [];
  const credentials: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((_request, response) => {
    response.writeHead(405).end('CONNECT only');
  });
  server.on('connect', (request, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => {});
    const basic = /^Basic (.+)$/.exec(request.headers['proxy-authorization'] ?? '')?.[1];
    const given = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
    tunnels.push(request.url ?? '');
    credentials.push(given);
    if (requireAuth !== undefined && given !== requireAuth) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = splitAuthority(request.url ?? '');
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  });
  return started(server, sockets, tunnels, credentials);
}

/** A SOCKS5 proxy; with `requireAuth` (`user:password`) it asks for username/password. */
export async function socks5Proxy(requireAuth?: string): Promise<TestProxy> {
  const tunnels: string[] = [];
  const credentials: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    const { read, release } = reader(client);
    void (async () => {
      const greeting = await read(2);
      await read(greeting[1] ?? 0);
      let given = '';
      if (requireAuth !== undefined) {
        client.write(Buffer.from([5, 2]));
        const version = await read(2);
        const user = (await read(version[1] ?? 0)).toString();
        const password = (await read((await read(1))[0] ?? 0)).toString();
        given = `${user}:${password}`;
        const ok = given === requireAuth;
        client.write(Buffer.from([1, ok ? 0 : 1]));
        if (!ok) {
          credentials.push(given);
          client.end();
          return;
        }
      } else client.write(Buffer.from([5, 0]));
      const request = await read(4);
      const type = request[3];
      const host =
        type === 1
          ? [...(await read(4))].join('.')
          : type === 3
            ? (await read((await read(1))[0] ?? 0)).toString()
            : (await read(16)).toString('hex');
      const port = (await read(2)).readUInt16BE(0);
      tunnels.push(`${host}:${port}`);
      credentials.push(given);
      release();
      const upstream = connect(port, host, () => {
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
    })().catch(() => client.destroy());
  });
  return started(server, sockets, tunnels, credentials);
}

/** Reads exactly `n` bytes at a time from a socket, in order; `release` hands the rest back to the socket. */
function reader(socket: Socket): { read: (n: number) => Promise<Buffer>; release: () => void } {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void } | undefined;
  const serve = () => {
    if (waiting === undefined || buffered.length < waiting.n) return;
    const { n, resolve } = waiting;
    waiting = undefined;
    const chunk = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    resolve(chunk);
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    serve();
  };
  socket.on('data', onData);
  return {
    read: (n) =>
      new Promise<Buffer>((resolve) => {
        waiting = { n, resolve };
        serve();
      }),
    release: () => {
      socket.off('data', onData);
      socket.pause();
      if (buffered.length > 0) socket.unshift(buffered);
    },
  };
}

function splitAuthority(authority: string): [string, number] {
  const at = authority.lastIndexOf(':');
  return [authority.slice(0, at).replace(/^\[|\]$/g, ''), Number(authority.slice(at + 1))];
}

async function started(
  server: Server,
  sockets: Set<Socket>,
  tunnels: string[],
  credentials: string[],
): Promise<TestProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    tunnels,
    credentials,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
