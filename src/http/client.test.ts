import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SendBudget } from './budget.js';
import { keepsConnectionInStep } from './client.js';
import type { HttpRequest } from './message.js';
import { closedAfterEach, failure } from './testing/cleanups.js';
import {
  get,
  httpServer,
  okResponse,
  type Running,
  rawServer,
  selfSignedCertificate,
} from './testing/servers.js';

const { defer, client } = closedAfterEach();

function track<T extends Running>(server: T): T {
  defer(() => server.close());
  return server;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A TLS server that answers the first bytes of every connection with `answer`. */
function tlsServer(answer: (socket: TLSSocket) => void): Server {
  return createTlsServer(selfSignedCertificate(), (socket) => socket.once('data', () => answer(socket)));
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('HttpClient responses', () => {
  it('returns status, reason, version, headers in order with casing, the raw head and the body', async () => {
    const head =
      'HTTP/1.0 201 Made It\r\nX-First: 1\r\nset-cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\n';
    const server = track(await rawServer((_head, socket) => socket.write(`${head}hello`)));
    const response = await client().send(get(server.port, '/x'));
    expect(response.httpVersion).toBe('HTTP/1.0');
    expect(response.statusCode).toBe(201);
    expect(response.reason).toBe('Made It');
    expect(response.headers).toEqual([
      ['X-First', '1'],
      ['set-cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['Content-Length', '5'],
    ]);
    expect(response.rawHead).toBe(head);
    expect(response.body.toString()).toBe('hello');
    expect(response.truncatedAt).toBeUndefined();
    expect(response.remoteAddress).toBe('127.0.0.1');
    expect(response.url).toBe(`http://127.0.0.1:${server.port}/x`);
    expect(response.durationMs).toBeGreaterThan(0);
  });

  it('keeps the head exactly as received when it arrives in many small pieces', async () => {
    const head = 'HTTP/1.0 200 Fine\r\nX-Odd:   spaced  \r\nContent-Length: 2\r\n\r\n';
    const server = track(
      await rawServer((_head, socket) => {
        const bytes = `${head}ok`;
        for (let i = 0; i < bytes.length; i++) setTimeout(() => socket.write(bytes[i] ?? ''), i * 2);
      }),
    );
    const response = await client().send(get(server.port));
    expect(response.rawHead).toBe(head);
    expect(response.httpVersion).toBe('HTTP/1.0');
    expect(response.headers).toContainEqual(['X-Odd', 'spaced']);
  });

  it('keeps the exact bytes of a head that is not UTF-8', async () => {
    const head = Buffer.from('HTTP/1.1 200 OK\r\nX-Bin: \xff\xfe\r\nContent-Length: 0\r\n\r\n', 'latin1');
    const server = track(await rawServer((_head, socket) => socket.write(head)));
    const response = await client().send(get(server.port));
    expect(response.rawHeadBytes.equals(head)).toBe(true);
    expect(response.headers).toContainEqual(['X-Bin', '\ufffd\ufffd']);
  });

  it('keeps the head exactly as received over TLS', async () => {
    const server = tlsServer((socket) =>
      socket.end(`HTTP/1.0 200 OK\r\nX-Tls: 1\r\nContent-Length: 3\r\n\r\ntls`),
    );
    const port = await listening(server);
    defer(() => new Promise((resolve) => server.close(() => resolve())));
    const response = await client().send({ ...get(port), scheme: 'https' });
    expect(response.rawHead).toBe('HTTP/1.0 200 OK\r\nX-Tls: 1\r\nContent-Length: 3\r\n\r\n');
    expect(response.body.toString()).toBe('tls');
  });

  it('reads HEAD and 204 responses without a body', async () => {
    const server = track(
      await httpServer((request, response) => {
        response.statusCode = request.url === '/empty' ? 204 : 200;
        response.setHeader('Content-Length', request.url === '/empty' ? '0' : '4');
        response.end(request.method === 'HEAD' || request.url === '/empty' ? undefined : 'body');
      }),
    );
    const http = client();
    const head = await http.send({ ...get(server.port), method: 'HEAD' });
    expect(head.headers).toContainEqual(['Content-Length', '4']);
    expect(head.body.length).toBe(0);
    expect((await http.send(get(server.port, '/empty'))).statusCode).toBe(204);
  });

  it('decodes gzip and br bodies', async () => {
    const server = track(
      await httpServer((request, response) => {
        const br = request.url === '/br';
        response.setHeader('Content-Encoding', br ? 'br' : 'gzip');
        response.end(br ? brotliCompressSync('brotli hello') : gzipSync('gzip hello'));
      }),
    );
    const http = client();
    expect((await http.send(get(server.port, '/gz'))).body.toString()).toBe('gzip hello');
    expect((await http.send(get(server.port, '/br'))).body.toString()).toBe('brotli hello');
  });

  it('reads responses that strict parsers refuse, and keeps the connection when they end cleanly', async () => {
    const server = track(
      await rawServer((_head, socket) =>
        socket.write('HTTP/1.1 200 OK\nX-Folded: a\n b\nJunk line\nContent-Length: 2\n\nok'),
      ),
    );
    const http = client();
    const response = await http.send(get(server.port));
    expect(response.headers).toEqual([
      ['X-Folded', 'a b'],
      ['Content-Length', '2'],
    ]);
    expect(response.body.toString()).toBe('ok');
    expect(server.heads).toHaveLength(1);
    expect((await http.send(get(server.port, '/again'))).body.toString()).toBe('ok');
    expect(server.connections()).toBe(1);
  });

  it('reads past an unsolicited 100 Continue', async () => {
    const server = track(
      await rawServer((_head, socket) =>
        socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone'),
      ),
    );
    const response = await client().send({ ...get(server.port), method: 'POST', body: 'x=1' });
    expect(response.statusCode).toBe(200);
    expect(response.body.toString()).toBe('done');
  });
});

describe('HttpClient connections', () => {
  it('reuses one keep-alive connection for requests to one origin', async () => {
    const server = track(await httpServer((_request, response) => response.end('ok')));
    const http = client();
    for (let i = 0; i < 5; i++) {
      expect((await http.send(get(server.port, `/${i}`))).body.toString()).toBe('ok');
      await nextTurn();
    }
    expect(server.connections()).toBe(1);
  });

  it('keeps back-to-back sequential requests on one connection', async () => {
    const server = track(await httpServer((_request, response) => response.end('ok')));
    const http = client();
    for (let i = 0; i < 20; i++) await http.send(get(server.port, `/${i}`));
    expect(server.connections()).toBe(1);
  });

  it('opens at most connectionsPerOrigin connections to an origin', async () => {
    const server = track(
      await httpServer((_request, response) => setTimeout(() => response.end('slow'), 20)),
    );
    const http = client({ connectionsPerOrigin: 3 });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => http.send(get(server.port, `/${i}`))),
    );
    expect(responses.map((r) => r.body.toString())).toEqual(Array(12).fill('slow'));
    expect(server.connections()).toBe(3);
  });

  it('sends again on a fresh connection when the server closed the reused one', async () => {
    // The server answers the first request of each connection and drops the connection on the
    // second: what a keep-alive timeout racing with a new request looks like.
    const served = new WeakMap<object, number>();
    const server = track(
      await rawServer((_head, socket) => {
        const count = (served.get(socket) ?? 0) + 1;
        served.set(socket, count);
        if (count === 1) socket.write(okResponse('fresh'));
        else socket.destroy();
      }),
    );
    const http = client();
    expect((await http.send(get(server.port, '/1'))).body.toString()).toBe('fresh');
    await nextTurn();
    expect((await http.send(get(server.port, '/2'))).body.toString()).toBe('fresh');
    expect(server.connections()).toBe(2);
  });

  it('talks to a self-signed HTTPS server, unless verification is on', async () => {
    const server = track(
      await httpServer((request, response) => response.end(`tls ${request.url}`), selfSignedCertificate()),
    );
    const request: HttpRequest = { ...get(server.port, '/t'), scheme: 'https' };
    expect((await client().send(request)).body.toString()).toBe('tls /t');
    const error = await failure(client({ verifyTls: true }).send(request));
    expect(error.kind).toBe('connect');
    expect(error.message).toMatch(/certificate/i);
  });

  it('presents the host name as TLS server name, or the one asked for, and keeps the connection', async () => {
    const names: (string | false | null)[] = [];
    const server = tlsServer((socket) => {
      names.push(socket.servername);
      socket.write(okResponse('ok'));
      socket.on('data', () => socket.write(okResponse('ok')));
    });
    const port = await listening(server);
    defer(() => new Promise((resolve) => server.close(() => resolve())));
    const http = client();
    const named: HttpRequest = { ...get(port), scheme: 'https', hostname: 'localhost' };
    await http.send(named);
    await nextTurn();
    await http.send({ ...named, headers: [['Host', 'localhost']] });
    await http.send({ ...get(port), scheme: 'https' }, { tlsServerName: 'sni.test' });
    await http.sendRaw({ scheme: 'https', hostname: '127.0.0.1', port, bytes: 'GET / HTTP/1.1\r\n\r\n' });
    expect(names).toEqual(['localhost', 'sni.test', false]);
  });

  it('reports a refused connection', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await failure(client().send(get(port)));
    expect(error.kind).toBe('connect');
    expect(error.message).toContain(`http://127.0.0.1:${port}/: could not connect`);
  });

  it('refuses a request to an impossible host or port with a clear error', async () => {
    const http = client();
    expect((await failure(http.send({ ...get(80), hostname: 'a b' }))).message).toContain(
      'invalid host name "a b"',
    );
    expect((await failure(http.send(get(70000)))).kind).toBe('invalid-request');
  });
});

describe('HttpClient limits', () => {
  it('times out on a server that accepts and never answers', async () => {
    const server = track(await rawServer(() => {}));
    const error = await failure(client({ timeoutMs: 300 }).send(get(server.port)));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(
      `http://127.0.0.1:${server.port}/: timed out after 300 ms while waiting for the response head`,
    );
  });

  it('times out on a server that trickles its body, whatever the pace', async () => {
    const server = track(
      await rawServer((_head, socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
        const timer = setInterval(() => socket.write('x'), 20);
        socket.on('close', () => clearInterval(timer));
      }),
    );
    const error = await failure(client().send(get(server.port), { timeoutMs: 400 }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('timed out after 400 ms while reading the body');
  });

  it('ends sends that share a budget once their time together runs out, each within its own deadline', async () => {
    const server = track(
      await rawServer((_head, socket) => {
        setTimeout(() => socket.write(okResponse('late')), 250);
      }),
    );
    const sender = client({ timeoutMs: 400 });
    const budget = new SendBudget(1);
    expect((await sender.send(get(server.port, '/1'), { budget })).statusCode).toBe(200);
    const cut = await failure(sender.send(get(server.port, '/2'), { budget }));
    expect(cut.kind).toBe('timeout');
    expect(cut.message).toMatch(
      /\/2: timed out after \d+ ms while waiting for the response head: the request, its redirects and retries took their 400 ms$/,
    );
    const refused = await failure(sender.send(get(server.port, '/3'), { budget }));
    expect(refused.message).toBe(
      `http://127.0.0.1:${server.port}/3: not sent: the request, its redirects and retries took their 400 ms`,
    );
    expect(server.heads).toHaveLength(2);
  });

  it('stops when the caller aborts', async () => {
    const server = track(await rawServer(() => {}));
    const controller = new AbortController();
    const pending = client().send(get(server.port), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('scan cancelled')), 30);
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.message).toContain('scan cancelled');
  });

  it('stops every request in flight that shares the aborted signal, after others finished with it', async () => {
    const quick = track(await httpServer((_request, response) => response.end('done')));
    const silent = track(await rawServer(() => {}));
    const controller = new AbortController();
    const sender = client();
    for (let i = 0; i < 5; i++) {
      expect((await sender.send(get(quick.port), { signal: controller.signal })).statusCode).toBe(200);
    }
    const pending = [1, 2, 3].map((n) =>
      failure(sender.send(get(silent.port, `/${n}`), { signal: controller.signal })),
    );
    setTimeout(() => controller.abort(new Error('scan stopped')), 30);
    const errors = await Promise.all(pending);
    expect(errors.map((e) => e.kind)).toEqual(['aborted', 'aborted', 'aborted']);
    expect(errors[0]?.message).toContain('scan stopped');
  });

  it('reports a connection reset inside a Content-Length or chunked body as a lost connection', async () => {
    const heads = {
      '/length': 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n',
      '/chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n',
    };
    const server = track(
      await rawServer((head, socket) => {
        const target = head.split(' ')[1] as keyof typeof heads;
        socket.write(`${heads[target]}partial`, () => setTimeout(() => socket.resetAndDestroy(), 20));
      }),
    );
    const http = client();
    for (const target of Object.keys(heads)) {
      const error = await failure(http.send(get(server.port, target)));
      expect(error.kind, target).toBe('connection-lost');
      expect(error.message, target).toMatch(/connection lost while reading the body \(read ECONNRESET\): /);
    }
  });

  it('cuts a large body at the cap without reading the rest', async () => {
    let written = 0;
    const server = track(
      await httpServer((_request, response) => {
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (written < 64 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
          if (written < 64 * 1024 * 1024) response.once('drain', pump);
          else response.end();
        };
        response.on('close', () => response.removeAllListeners('drain'));
        pump();
      }),
    );
    const response = await client({ maxBodyBytes: 100_000 }).send(get(server.port));
    expect(response.body.length).toBe(100_000);
    expect(response.truncatedAt).toBe(100_000);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('keeps a decompression bomb within the cap', async () => {
    const gzipBomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    const brBomb = brotliCompressSync(Buffer.alloc(32 * 1024 * 1024), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 1 },
    });
    const server = track(
      await httpServer((request, response) => {
        response.setHeader('Content-Encoding', request.url === '/br' ? 'br' : 'gzip');
        response.end(request.url === '/br' ? brBomb : gzipBomb);
      }),
    );
    const http = client({ maxBodyBytes: 1024 * 1024 });
    for (const target of ['/gz', '/br']) {
      const response = await http.send(get(server.port, target));
      expect(response.body.length, target).toBe(1024 * 1024);
      expect(response.truncatedAt, target).toBe(1024 * 1024);
    }
  });
});

describe('HttpClient on the wire', () => {
  const targets = [
    '/a/../b',
    '/..;/admin',
    '/%2e%2e/%2e%2e/etc/passwd',
    '//double//slash/',
    '/%ZZ%%',
    '/?q=a%20b&next=../../x',
    '/é?ü=1',
    'http://absolute.test/x',
    '*',
    '/with space',
    '/tab\there',
  ];

  it('sends every request-target exactly as written', async () => {
    const server = track(await rawServer((_head, socket) => socket.write(okResponse('ok'))));
    const http = client();
    for (const target of targets) await http.send(get(server.port, target));
    const lines = server.heads.map((head) => Buffer.from(head, 'latin1').toString('utf8').split('\r\n')[0]);
    expect(lines).toEqual(targets.map((target) => `GET ${target} HTTP/1.1`));
  });

  it('writes headers in order with their casing, adding nothing but a missing Host', async () => {
    const server = track(await rawServer((_head, socket) => socket.write(okResponse('ok'))));
    await client().send(
      get(server.port, '/', [
        ['X-B', '2'],
        ['x-a', '1'],
        ['Host', 'virtual.test'],
        ['Cookie', 'a=1'],
        ['X-B', '3'],
        ['X-Utf8', 'café'],
      ]),
    );
    expect(Buffer.from(server.heads[0] ?? '', 'latin1').toString('utf8')).toBe(
      'GET / HTTP/1.1\r\nX-B: 2\r\nx-a: 1\r\nHost: virtual.test\r\nCookie: a=1\r\nX-B: 3\r\nX-Utf8: café\r\n\r\n',
    );
  });

  it('sends a body with its length and nothing the request did not ask for', async () => {
    const server = track(await rawServer((_head, socket) => socket.write(okResponse('ok'))));
    await client().send({ ...get(server.port, '/login'), method: 'POST', body: 'user=admin&pass=ü' });
    expect(Buffer.concat(server.received[0] ?? []).toString('utf8')).toBe(
      `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 18\r\n\r\nuser=admin&pass=ü`,
    );
  });

  it('sends a request with conflicting framing byte for byte, on a connection of its own', async () => {
    const server = track(await rawServer((_head, socket) => socket.write(okResponse('ok'))));
    const http = client();
    const smuggle: HttpRequest = {
      ...get(server.port, '/'),
      method: 'POST',
      headers: [
        ['Host', 'a.test'],
        ['Content-Length', '4'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: '0\r\n\r\n',
    };
    const response = await http.send(smuggle);
    expect(response.statusCode).toBe(200);
    expect(Buffer.concat(server.received[0] ?? []).toString('latin1')).toBe(
      'POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
  });
});

describe('keepsConnectionInStep', () => {
  const request = (change: Partial<HttpRequest>): HttpRequest => ({ ...get(80), ...change });

  it('keeps requests that frame themselves on keep-alive connections', () => {
    expect(keepsConnectionInStep(request({ target: '/..;/%2e/é' }))).toBe(true);
    expect(keepsConnectionInStep(request({ headers: [['Connection', 'keep-alive']] }))).toBe(true);
    expect(keepsConnectionInStep(request({ method: 'POST', headers: [['Content-Length', '0']] }))).toBe(true);
    expect(
      keepsConnectionInStep(request({ method: 'POST', body: 'ab', headers: [['content-length', '2']] })),
    ).toBe(true);
  });

  it('gives requests that could put the connection out of step a connection of their own', () => {
    const alone: Partial<HttpRequest>[] = [
      { method: 'GE T' },
      { target: '*x y' },
      { target: '/tab\there' },
      { headers: [['X', 'a\r\nInjected: 1']] },
      { headers: [['Bad Name', '1']] },
      { headers: [['Expect', '100-continue']] },
      { headers: [['Transfer-Encoding', 'chunked']] },
      { headers: [['Upgrade', 'websocket']] },
      { headers: [['Connection', 'close']] },
      {
        headers: [
          ['Host', 'a'],
          ['host', 'b'],
        ],
      },
      { method: 'POST', body: 'abc', headers: [['Content-Length', '2']] },
      {
        method: 'POST',
        body: 'ab',
        headers: [
          ['Content-Length', '2'],
          ['Content-Length', '2'],
        ],
      },
    ];
    for (const change of alone)
      expect(keepsConnectionInStep(request(change)), JSON.stringify(change)).toBe(false);
  });

  it('judges each header afresh: names and values seen before in step do not vouch for others', () => {
    for (let round = 0; round < 3; round++) {
      expect(keepsConnectionInStep(request({ headers: [['X-Token', 'plain']] }))).toBe(true);
      expect(keepsConnectionInStep(request({ headers: [['X-Token', 'plain\r\nX: 1']] }))).toBe(false);
      expect(keepsConnectionInStep(request({ headers: [['X-Token ', 'plain']] }))).toBe(false);
      expect(keepsConnectionInStep(request({ headers: [['X-Long', 'v'.repeat(5000)]] }))).toBe(true);
      expect(keepsConnectionInStep(request({ headers: [['X-Long', `${'v'.repeat(5000)}\n`]] }))).toBe(false);
    }
    // Far more distinct values than are kept: each is still checked.
    for (let i = 0; i < 600; i++) {
      expect(keepsConnectionInStep(request({ headers: [['X-N', `value-${i}`]] }))).toBe(true);
      expect(keepsConnectionInStep(request({ headers: [['X-N', `value-${i}\u0000`]] }))).toBe(false);
    }
  });
});
