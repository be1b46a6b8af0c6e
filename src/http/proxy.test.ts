/**
 * `-proxy` over real sockets: HTTP(S) targets reached through an HTTP `CONNECT` proxy and a SOCKS5
 * proxy, with and without credentials; what reaches the target is what would have gone without the
 * proxy, and the proxy's credentials go to the proxy only.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './client.js';
import type { HttpRequest } from './message.js';
import { type ProxyServer, parseProxy } from './proxy.js';
import { connectProxy, socks5Proxy, type TestProxy } from './testing/proxies.js';
import { type CountingServer, httpServer, selfSignedCertificate } from './testing/servers.js';

let plain: CountingServer;
let secure: CountingServer;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  const answer = (request: IncomingMessage, response: import('node:http').ServerResponse) => {
    seen.push(request);
    response.end(`hello from ${request.url}`);
  };
  plain = await httpServer(answer);
  secure = await httpServer(answer, selfSignedCertificate());
});

afterAll(async () => {
  await Promise.all([plain.close(), secure.close()]);
});

function proxyOf(text: string): ProxyServer {
  const proxy = parseProxy(text);
  if (typeof proxy === 'string') throw new Error(proxy);
  return proxy;
}

function get(scheme: 'http' | 'https', port: number, target: string): HttpRequest {
  return {
    method: 'GET',
    scheme,
    hostname: '127.0.0.1',
    port,
    target,
    headers: [
      ['Host', `127.0.0.1:${port}`],
      ['Authorization', 'Bearer target-secret'],
    ],
    body: '',
  };
}

async function through(proxy: TestProxy, url: string, run: (client: HttpClient) => Promise<void>) {
  const client = new HttpClient({ timeoutMs: 3000, proxy: proxyOf(url.replace('PORT', String(proxy.port))) });
  try {
    await run(client);
  } finally {
    await client.close();
    await proxy.close();
  }
}

describe.each([
  ['an HTTP CONNECT proxy', connectProxy, 'http'],
  ['a SOCKS5 proxy', socks5Proxy, 'socks5'],
] as const)('through %s', (_name, start, scheme) => {
  it('reaches http and https targets through one tunnel per connection, the requests unchanged', async () => {
    const proxy = await start();
    await through(proxy, `${scheme}://127.0.0.1:PORT`, async (client) => {
      const first = await client.send(get('http', plain.port, '/one'));
      const second = await client.send(get('http', plain.port, '/two'));
      const tls = await client.send(get('https', secure.port, '/three'));
      expect([first, second, tls].map((r) => r.body.toString())).toEqual([
        'hello from /one',
        'hello from /two',
        'hello from /three',
      ]);
      expect(proxy.tunnels).toEqual([`127.0.0.1:${plain.port}`, `127.0.0.1:${secure.port}`]);
      const last = seen.slice(-3);
      expect(last.map((r) => r.headers.authorization)).toEqual(Array(3).fill('Bearer target-secret'));
      expect(last.some((r) => r.headers['proxy-authorization'] !== undefined)).toBe(false);
    });
  });

  it('gives the proxy its credentials, and the target never sees them', async () => {
    const proxy = await start('scanner:s3cret');
    await through(proxy, `${scheme}://scanner:s3cret@127.0.0.1:PORT`, async (client) => {
      const response = await client.send(get('http', plain.port, '/auth'));
      expect(response.body.toString()).toBe('hello from /auth');
      expect(proxy.credentials).toEqual(['scanner:s3cret']);
      const last = seen.at(-1);
      expect(JSON.stringify(last?.headers)).not.toContain('s3cret');
      expect(last?.rawHeaders.join('\n')).not.toMatch(/proxy/i);
    });
  });

  it('fails a request the proxy refuses as a connection failure naming the proxy, never its password', async () => {
    const proxy = await start('scanner:s3cret');
    await through(proxy, `${scheme}://scanner:wrong@127.0.0.1:PORT`, async (client) => {
      const error = await client.send(get('http', plain.port, '/')).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'connect' });
      const message = (error as Error).message;
      expect(message).toContain(`proxy ${scheme}://scanner:****@127.0.0.1:${proxy.port}`);
      expect(message).not.toContain('wrong');
    });
  });
});

describe('a proxy that cannot be reached', () => {
  it('fails each request as a connection failure that names the proxy', async () => {
    const gone = await connectProxy();
    await gone.close();
    const client = new HttpClient({ timeoutMs: 3000, proxy: proxyOf(`http://127.0.0.1:${gone.port}`) });
    try {
      const error = await client.send(get('http', plain.port, '/')).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'connect' });
      expect((error as Error).message).toContain(`proxy http://127.0.0.1:${gone.port}:`);
    } finally {
      await client.close();
    }
  });
});

describe('proxy URLs', () => {
  it('reads http, https and socks5 proxies with their default ports and masks the password', () => {
    expect(parseProxy('http://127.0.0.1:8080')).toMatchObject({ kind: 'http', port: 8080 });
    expect(parseProxy('127.0.0.1:3128')).toMatchObject({ kind: 'http', hostname: '127.0.0.1', port: 3128 });
    expect(parseProxy('https://proxy.example')).toMatchObject({ kind: 'https', port: 443 });
    expect(parseProxy('socks5h://u:p%40ss@[::1]')).toMatchObject({
      kind: 'socks5',
      hostname: '::1',
      port: 1080,
      username: 'u',
      password: 'p@ss',
      label: 'socks5://u:****@[::1]',
    });
  });

  it('says what is wrong with a proxy it cannot use', () => {
    expect(parseProxy('ftp://proxy:21')).toBe(
      '"ftp://proxy:21": keyhole proxies through http, https or socks5, not ftp',
    );
    expect(parseProxy('http://')).toMatch(/is not a proxy URL/);
  });
});
