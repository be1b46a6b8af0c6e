/**
 * The scope proxy is the browser's only way out: whatever a page asks for, a connection is opened
 * to a destination only when the login's scope allows it.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserDestination, ScopeProxy } from './scope-proxy.js';

let upstream: Server;
let upstreamPort: number;
const upstreamSockets = new Set<Socket>();

beforeAll(async () => {
  upstream = createServer((socket) => {
    upstreamSockets.add(socket);
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  upstreamPort = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  for (const socket of upstreamSockets) socket.destroy();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Sends `text` to the proxy and returns the first line of its answer. */
async function ask(proxy: ScopeProxy, text: string): Promise<string> {
  const port = Number(new URL(proxy.url).port);
  return new Promise((resolve) => {
    const socket: Socket = netConnect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
  });
}

const hosts = fc.constantFrom('app.test', 'idp.test', 'evil.test', '127.0.0.1', '[::1]', 'APP.test');
const ports = fc.constantFrom(80, 443, 8443, 1);

describe('the scope proxy', () => {
  it('opens a connection only to the destinations the scope allows, whatever is asked', async () => {
    const opened: string[] = [];
    const refused: BrowserDestination[] = [];
    const allowed = (to: BrowserDestination) => to.hostname === 'app.test' && to.port === 443;
    const proxy = await ScopeProxy.start({
      allowed,
      onRefused: (to) => refused.push(to),
      connect: (hostname, port) => {
        opened.push(`${hostname}:${port}`);
        return netConnect(upstreamPort, '127.0.0.1');
      },
    });
    try {
      await fc.assert(
        fc.asyncProperty(hosts, ports, fc.boolean(), async (host, port, tunnel) => {
          opened.length = 0;
          const request = tunnel
            ? `CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`
            : `GET http://${host}:${port}/x?token=t HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`;
          const first = await ask(proxy, request);
          // Host names are compared in lower case, as URLs write them.
          const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
          const permitted = allowed({ scheme: tunnel ? 'https' : 'http', hostname: bare, port });
          if (permitted) {
            expect(first).toMatch(/^HTTP\/1\.1 200 /);
            expect(opened).toEqual([`${bare}:${port}`]);
          } else {
            expect(first).toMatch(/^HTTP\/1\.1 403 /);
            expect(opened).toEqual([]);
          }
        }),
        { numRuns: 40 },
      );
      expect(refused.length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a request line it cannot read, connecting nowhere', async () => {
    let opened = 0;
    const proxy = await ScopeProxy.start({
      allowed: () => true,
      onRefused: () => undefined,
      connect: () => {
        opened++;
        return netConnect(upstreamPort, '127.0.0.1');
      },
    });
    try {
      expect(await ask(proxy, 'CONNECT app.test HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403 /);
      expect(await ask(proxy, 'GET /relative HTTP/1.1\r\nHost: app.test\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 400 /,
      );
      expect(opened).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
