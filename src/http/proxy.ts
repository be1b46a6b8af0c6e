/**
 * `-proxy`: every connection goes through an HTTP(S) or SOCKS5 proxy as a tunnel to the target's
 * host and port, so what is sent inside it (the request, its secret, TLS to the target) is exactly
 * what would go without the proxy. HTTP proxies get `CONNECT`, also for `http://` targets: the
 * request bytes stay as built (raw and unsafe requests included), and intercepting proxies (Burp,
 * ZAP, mitmproxy) accept it for any port.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import { SocksClient } from 'socks';

export interface ProxyServer {
  readonly kind: 'http' | 'https' | 'socks5';
  readonly hostname: string;
  readonly port: number;
  /** From the URL's user part; sent to the proxy only. */
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** The URL with its password masked, to show. */
  readonly label: string;
}

const DEFAULT_PORTS = { http: 8080, https: 443, socks5: 1080 } as const;

/** `http://[user:pass@]host:port`, `https://…` or `socks5://…` (`socks5h://` too); a message when it is not one. */
export function parseProxy(text: string): ProxyServer | string {
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    return `${JSON.stringify(text)} is not a proxy URL; write it as http://host:port, https://host:port or socks5://host:port`;
  }
  const scheme = url.protocol.slice(0, -1);
  const kind = scheme === 'socks5h' ? 'socks5' : scheme;
  if (kind !== 'http' && kind !== 'https' && kind !== 'socks5')
    return `${JSON.stringify(text)}: keyhole proxies through http, https or socks5, not ${scheme}`;
  if (url.hostname === '') return `${JSON.stringify(text)} names no proxy host`;
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const port = url.port === '' ? DEFAULT_PORTS[kind] : Number(url.port);
  const user = username === undefined ? '' : `${url.username}${password === undefined ? '' : ':****'}@`;
  return { kind, hostname, port, username, password, label: `${kind}://${user}${url.host}` };
}

/**
 * A socket to `host:port` through `proxy`: writes wait until the tunnel is open, then it is the
 * target's byte stream; it emits `connect` once open, and fails with an error naming the proxy.
 */
export class TunnelSocket extends Duplex {
  private inner: Socket | undefined;
  private pending: { chunk: Buffer; callback: (error?: Error | null) => void }[] = [];
  remoteAddress: string | undefined;

  constructor(
    readonly proxy: ProxyServer,
    host: string,
    port: number,
  ) {
    super();
    openTunnel(proxy, host, port).then(
      (socket) => this.opened(socket),
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }

  setNoDelay(noDelay?: boolean): this {
    this.inner?.setNoDelay(noDelay);
    return this;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.inner === undefined) this.pending.push({ chunk, callback });
    else this.inner.write(chunk, callback);
  }

  override _read(): void {
    this.inner?.resume();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.inner === undefined) callback();
    else this.inner.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    for (const { callback: written } of this.pending) written(error ?? new Error('the tunnel closed'));
    this.pending = [];
    callback(error);
  }

  private opened(socket: Socket): void {
    if (this.destroyed) {
      socket.destroy();
      return;
    }
    this.inner = socket;
    this.remoteAddress = socket.remoteAddress;
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
    socket.resume();
    for (const { chunk, callback } of this.pending) socket.write(chunk, callback);
    this.pending = [];
    this.emit('connect');
  }
}

/** The proxy's socket, once it carries the target's bytes (the proxy's handshake done). */
async function openTunnel(proxy: ProxyServer, host: string, port: number): Promise<Socket> {
  if (proxy.kind === 'socks5') {
    const { socket } = await SocksClient.createConnection({
      proxy: {
        host: proxy.hostname,
        port: proxy.port,
        type: 5,
        ...(proxy.username === undefined ? {} : { userId: proxy.username, password: proxy.password ?? '' }),
      },
      command: 'connect',
      destination: { host, port },
    }).catch((error: unknown) => {
      throw proxyError(proxy, host, port, error instanceof Error ? error.message : String(error));
    });
    return socket;
  }
  const socket = await connected(proxy);
  return httpConnect(socket, proxy, host, port);
}

function connected(proxy: ProxyServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      proxy.kind === 'https'
        ? connectTls({ host: proxy.hostname, port: proxy.port, rejectUnauthorized: false })
        : connectTcp({ host: proxy.hostname, port: proxy.port });
    const failed = (error: Error) => reject(proxyError(proxy, undefined, undefined, error.message));
    socket.once('error', failed);
    socket.once(proxy.kind === 'https' ? 'secureConnect' : 'connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}

/** The longest answer to `CONNECT` read before giving up on the proxy. */
const MAX_CONNECT_HEAD = 16 * 1024;

/**
 * `CONNECT host:port`: written by hand because the tunnel is all that is needed of an HTTP proxy
 * (the proxy-agent packages give it only through an `http.Agent`, which this client does not use).
 */
function httpConnect(socket: Socket, proxy: ProxyServer, host: string, port: number): Promise<Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const credentials =
    proxy.username === undefined
      ? ''
      : `Proxy-Authorization: Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}\r\n`;
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = (why: string) => {
      socket.destroy();
      reject(proxyError(proxy, host, port, why));
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_CONNECT_HEAD) fail('its answer to CONNECT has no end');
        return;
      }
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
      if (status === undefined || !status.startsWith('2'))
        return fail(`it answered CONNECT with ${JSON.stringify(statusLine)}`);
      const rest = head.subarray(end + 4);
      // Held until the tunnel's reader listens (TunnelSocket resumes it).
      socket.pause();
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (error: Error) => fail(error.message);
    const onClose = () => fail('it closed the connection before answering CONNECT');
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}

/** An error naming the proxy (never its password) and, when known, the tunnel's destination. */
function proxyError(
  proxy: ProxyServer,
  host: string | undefined,
  port: number | undefined,
  why: string,
): Error {
  const to = host === undefined ? '' : ` for ${host.includes(':') ? `[${host}]` : host}:${port}`;
  const error = new Error(`proxy ${proxy.label}${to}: ${why}`);
  (error as Error & { code: string }).code = 'EPROXY';
  return error;
}

/** Undefined when a connection to the proxy opens within `timeoutMs`, else why not. */
export function proxyAnswers(proxy: ProxyServer, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: proxy.hostname, port: proxy.port });
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: Error & { code?: string }) => done(error.code ?? error.message));
  });
}
