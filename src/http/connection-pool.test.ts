import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { HttpClient } from './client.js';
import { oneShotConnection } from './connection-pool.js';
import { TransportError } from './errors.js';
import { closedAfterEach } from './testing/cleanups.js';
import { get, okResponse, type RawServer, rawServer } from './testing/servers.js';

const { defer, client } = closedAfterEach();

async function serve(respond: (head: string, socket: Socket) => void): Promise<RawServer> {
  const server = await rawServer(respond);
  defer(() => server.close());
  return server;
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

describe('a connection', () => {
  it('is closed, not read, when bytes arrive before its request went out', async () => {
    // The server runs in a worker thread and tells through shared memory when it has written, so
    // that this thread can wait for the bytes without giving its event loop a turn.
    const written = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const net = require('node:net');
       let peer;
       const server = net.createServer((socket) => { peer = socket; parentPort.postMessage('connected'); });
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
       parentPort.on('message', (m) => {
         if (m !== 'stray') return server.close(() => process.exit(0));
         peer.write('HTTP/1.1 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nstray', () => {
           Atomics.store(workerData, 0, 1);
           Atomics.notify(workerData, 0);
         });
       });`,
      { eval: true, workerData: written },
    );
    const messages: unknown[] = [];
    worker.on('message', (m) => messages.push(m));
    const next = async () => {
      const seen = messages.length;
      while (messages.length === seen) await settle(5);
      return messages.at(-1);
    };
    try {
      const port = Number(await next());
      const connection = oneShotConnection(
        { scheme: 'http', hostname: '127.0.0.1', port, serverName: undefined },
        { verifyTls: false, proxy: undefined },
      );
      await next(); // connected
      const heard: string[] = [];
      const closed = new Promise<void>((resolve) => {
        connection.take({ onData: (chunk) => heard.push(chunk.toString()), onClose: () => resolve() });
      });
      // The request waits for the end of this turn; the stray bytes are read first.
      connection.send(Buffer.from('GET / HTTP/1.1\r\nHost: t\r\n\r\n'));
      worker.postMessage('stray');
      Atomics.wait(written, 0, 0, 5_000);
      const outcome = await Promise.race([closed.then(() => 'closed'), settle(3_000).then(() => 'open')]);
      expect({ outcome, heard }).toEqual({ outcome: 'closed', heard: [] });
    } finally {
      worker.postMessage('stop');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });
});

describe('stray bytes after responses', () => {
  it('never become the answer to the next request', async () => {
    // Each response is followed at once, in a segment of its own, by stray bytes that look like a
    // response: they arrive while the next request waits to be written.
    const server = await serve((head, socket) => {
      socket.setNoDelay(true);
      socket.write(okResponse(head.split(' ')[1] ?? ''));
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray');
    });
    const http = client({ connectionsPerOrigin: 1 });
    const answers = await Promise.all(['/a', '/b', '/c'].map((path) => http.send(get(server.port, path))));
    expect(answers.map((response) => response.body.toString())).toEqual(['/a', '/b', '/c']);
  });
});
