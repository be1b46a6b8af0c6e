import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient, type HttpClientOptions } from './client.js';
import { TransportError } from './errors.js';
import { get, okResponse, type RawServer, rawServer } from './testing/servers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(respond: (head: string, socket: Socket) => void): Promise<RawServer> {
  const server = await rawServer(respond);
  cleanups.push(() => server.close());
  return server;
}

function client(options: HttpClientOptions = {}): HttpClient {
  const made = new HttpClient(options);
  cleanups.push(() => made.close());
  return made;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bodies(http: HttpClient, port: number, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push((await http.send(get(port, `/${i}`))).body.toString());
  return out;
}

describe('keep-alive connections', () => {
  it('open a new connection after a response that says Connection: close', async () => {
    const server = await serve((_head, socket) => socket.end(okResponse('bye', 'Connection: close\r\n')));
    expect(await bodies(client(), server.port, 3)).toEqual(['bye', 'bye', 'bye']);
    expect(server.connections()).toBe(3);
  });

  it('keep an HTTP/1.0 connection only when the response says keep-alive', async () => {
    const plain = await serve((_head, socket) =>
      socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'),
    );
    expect(await bodies(client(), plain.port, 2)).toEqual(['ok', 'ok']);
    expect(plain.connections()).toBe(2);
    const kept = await serve((_head, socket) =>
      socket.write('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok'),
    );
    expect(await bodies(client(), kept.port, 2)).toEqual(['ok', 'ok']);
    expect(kept.connections()).toBe(1);
  });

  it('drop a connection whose server sent more than the response, so no answer goes to the wrong request', async () => {
    const server = await serve((head, socket) => {
      const path = head.split(' ')[1] ?? '';
      socket.write(`${okResponse(path)}HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray`);
    });
    expect(await bodies(client(), server.port, 3)).toEqual(['/0', '/1', '/2']);
    expect(server.connections()).toBe(3);
  });

  it('drop an idle connection on which the server speaks unasked', async () => {
    const server = await serve((head, socket) => {
      socket.write(okResponse(head.split(' ')[1] ?? ''));
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray'), 10);
    });
    const http = client();
    expect((await http.send(get(server.port, '/a'))).body.toString()).toBe('/a');
    await settle(50);
    expect((await http.send(get(server.port, '/b'))).body.toString()).toBe('/b');
    expect(server.connections()).toBe(2);
  });

  it('close idle connections after idleMs', async () => {
    const closed: number[] = [];
    const server = await serve((_head, socket) => {
      socket.once('close', () => closed.push(Date.now()));
      socket.write(okResponse('ok'));
    });
    const http = client({ idleMs: 50 });
    await http.send(get(server.port));
    await settle(1200);
    expect(closed).toHaveLength(1);
  });

  it('keep at most maxIdleConnections idle across origins, closing the oldest first', async () => {
    const servers = await Promise.all(
      [1, 2, 3].map(() => serve((_h, socket) => socket.write(okResponse('ok')))),
    );
    const http = client({ maxIdleConnections: 2 });
    for (const server of servers) await http.send(get(server.port));
    await settle(50);
    // The first origin's connection was closed when the third went idle: a new one is opened for it.
    await http.send(get(servers[0]!.port));
    await http.send(get(servers[2]!.port));
    expect(servers[0]!.connections()).toBe(2);
    expect(servers[2]!.connections()).toBe(1);
  });

  it('let a request waiting for a busy origin time out, and the connection serve the next one', async () => {
    let first = true;
    const server = await serve((_head, socket) => {
      if (!first) {
        socket.write(okResponse('next'));
        return;
      }
      first = false;
      setTimeout(() => socket.write(okResponse('slow')), 300);
    });
    const http = client({ connectionsPerOrigin: 1 });
    const slow = http.send(get(server.port, '/slow'));
    const waiting = http.send(get(server.port, '/waiting'), { timeoutMs: 100 });
    const error = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).kind).toBe('timeout');
    expect((error as TransportError).message).toContain('connecting');
    expect((await slow).body.toString()).toBe('slow');
    expect((await http.send(get(server.port, '/next'))).body.toString()).toBe('next');
    expect(server.connections()).toBe(1);
    expect(server.heads.map((head) => head.split(' ')[1])).toEqual(['/slow', '/next']);
  });

  it('send a request that could put the connection out of step on a connection closed after it', async () => {
    const server = await serve((_head, socket) => socket.write(okResponse('ok')));
    const http = client();
    const expecting = { ...get(server.port), headers: [['Expect', '100-continue']] as [string, string][] };
    await http.send(expecting);
    await http.send(expecting);
    expect(server.connections()).toBe(2);
    await http.send(get(server.port));
    await http.send(get(server.port));
    expect(server.connections()).toBe(3);
  });

  it('fail requests in flight when the client closes, and refuse later ones', async () => {
    const server = await serve(() => {});
    const http = new HttpClient();
    const pending = http.send(get(server.port)).then(
      () => undefined,
      (e: unknown) => e,
    );
    await settle(50);
    await http.close();
    expect(await pending).toBeInstanceOf(TransportError);
    const later = await http.send(get(server.port)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((later as TransportError).message).toContain('the client is closed');
  });
});
