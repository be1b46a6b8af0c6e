import { createServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RawHttpRequest } from './client.js';
import { ChunkedDecoder } from './response-reader.js';
import { closedAfterEach, failure } from './testing/cleanups.js';
import { get, httpServer, type Running, rawServer, selfSignedCertificate } from './testing/servers.js';

const { defer, client } = closedAfterEach();

async function serve(respond: (head: string, socket: Socket) => void) {
  const server = await rawServer(respond);
  defer(() => server.close());
  return server;
}

function raw(port: number, bytes: string, scheme: 'http' | 'https' = 'http'): RawHttpRequest {
  return { scheme, hostname: '127.0.0.1', port, bytes };
}

const getBytes = 'GET /x HTTP/1.1\r\nHost: t\r\n\r\n';

describe('unsafe requests over a raw socket', () => {
  it('sends the bytes exactly as given, malformed on purpose', async () => {
    const bytes =
      'GET /a/../%2e?x=<\x01> HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Ctl: \x7f\r\nX-Folded: a\r\n b\r\n\r\n';
    const server = await serve((_head, socket) =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
    );
    const response = await client().sendRaw(raw(server.port, bytes));
    expect(Buffer.concat(server.received[0] ?? []).toString('latin1')).toBe(bytes);
    expect(response.body.toString()).toBe('ok');
    expect(response.url).toBe(`http://127.0.0.1:${server.port}/a/../%2e?x=<\x01>`);
    expect(response.remoteAddress).toBe('127.0.0.1');
  });

  it('reads a Content-Length body and keeps the head exactly as received', async () => {
    const head = 'HTTP/1.1 200 Fine\r\nserver: x\r\nContent-Length: 5\r\n\r\n';
    const server = await serve((_head, socket) => socket.write(`${head}hello-and-extra`));
    const response = await client().sendRaw(raw(server.port, getBytes));
    expect(response.rawHead).toBe(head);
    expect(response.reason).toBe('Fine');
    expect(response.body.toString()).toBe('hello');
    expect(response.truncatedAt).toBeUndefined();
  });

  it('reads a chunked body sent in pieces, with extensions and trailers', async () => {
    const server = await serve((_head, socket) => {
      const parts = [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhel',
        'lo\r\n6\r\n world\r',
        '\n0\r\nTrailer: x\r\n\r\n',
      ];
      for (const [index, part] of parts.entries()) setTimeout(() => socket.write(part), index * 20);
    });
    const response = await client().sendRaw(raw(server.port, getBytes));
    expect(response.body.toString()).toBe('hello world');
    expect(response.truncatedAt).toBeUndefined();
  });

  it('reads a close-delimited body, on a raw or a pooled request, and knows the peer', async () => {
    const server = await serve((_head, socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nuntil close'));
    const http = client();
    for (const response of [
      await http.sendRaw(raw(server.port, getBytes)),
      await http.send(get(server.port)),
    ]) {
      expect(response.body.toString()).toBe('until close');
      expect(response.truncatedAt).toBeUndefined();
      expect(response.remoteAddress).toBe('127.0.0.1');
    }
  });

  it('reads no body for HEAD, 204 and 304 even when a length is announced', async () => {
    const server = await serve((head, socket) => {
      const status = head.startsWith('HEAD')
        ? '200 OK'
        : head.includes('/204')
          ? '204 No Content'
          : '304 Not Modified';
      socket.write(`HTTP/1.1 ${status}\r\nContent-Length: 10\r\n\r\n`);
    });
    for (const bytes of [
      'HEAD / HTTP/1.1\r\n\r\n',
      'GET /204 HTTP/1.1\r\n\r\n',
      'GET /304 HTTP/1.1\r\n\r\n',
    ]) {
      const response = await client({ timeoutMs: 5000 }).sendRaw(raw(server.port, bytes));
      expect(response.body.length).toBe(0);
    }
  });

  it('skips an unsolicited 100 Continue and reads the final response', async () => {
    const server = await serve((_head, socket) =>
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone'),
    );
    const response = await client().sendRaw(raw(server.port, getBytes));
    expect(response.statusCode).toBe(200);
    expect(response.body.toString()).toBe('done');
  });

  it('decodes a gzip body', async () => {
    const body = gzipSync('zipped');
    const server = await serve((_head, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body);
    });
    const response = await client().sendRaw(raw(server.port, getBytes));
    expect(response.body.toString()).toBe('zipped');
  });

  it('cuts the body at the cap and closes the connection', async () => {
    const server = await serve((_head, socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${'x'.repeat(1_000_000)}`),
    );
    const response = await client({ maxBodyBytes: 1000 }).sendRaw(raw(server.port, getBytes));
    expect(response.body.length).toBe(1000);
    expect(response.truncatedAt).toBe(1000);
  });

  it('answers with the bytes that came, marked as cut short, when the server closes the connection inside the body', async () => {
    const server = await serve((_head, socket) =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'),
    );
    const response = await client().sendRaw(raw(server.port, getBytes));
    expect(response.body.toString()).toBe('partial');
    expect(response.cutShort).toBe('7 of its 100 bytes arrived');
  });

  it('times out on a server that accepts and never answers', async () => {
    const server = await serve(() => {});
    const error = await failure(client({ timeoutMs: 300 }).sendRaw(raw(server.port, getBytes)));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(
      `http://127.0.0.1:${server.port}/x: timed out after 300 ms while waiting for the response head`,
    );
  });

  it('times out on a server that trickles its body', async () => {
    const server = await serve((_head, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
      const timer = setInterval(() => socket.write('x'), 50);
      socket.on('close', () => clearInterval(timer));
    });
    const error = await failure(client({ timeoutMs: 400 }).sendRaw(raw(server.port, getBytes)));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('while reading the body');
  });

  it('rejects garbage at once as a malformed response', async () => {
    const server = await serve((_head, socket) => socket.write('SSH-2.0-OpenSSH_9.0\r\n'));
    const error = await failure(client({ timeoutMs: 20_000 }).sendRaw(raw(server.port, getBytes)));
    expect(error.kind).toBe('malformed-response');
    expect(error.message).toContain('not an HTTP response: "SSH-2.0');
  });

  it('rejects a broken chunked body as a malformed response', async () => {
    const server = await serve((_head, socket) =>
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n'),
    );
    const error = await failure(client().sendRaw(raw(server.port, getBytes)));
    expect(error.kind).toBe('malformed-response');
    expect(error.message).toContain('bad chunk size line "zz"');
  });

  it('reports a server that closes without answering', async () => {
    const server = await serve((_head, socket) => socket.end());
    const error = await failure(client().sendRaw(raw(server.port, getBytes)));
    expect(error.kind).toBe('connection-lost');
    expect(error.message).toContain('closed the connection without answering');
  });

  it('reports a refused connection as a connect error', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await failure(client().sendRaw(raw(port, getBytes)));
    expect(error.kind).toBe('connect');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('stops when the caller aborts', async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const pending = client({ timeoutMs: 20_000 }).sendRaw(raw(server.port, getBytes), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('first match found')), 50);
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.message).toContain('first match found');
  });

  it('speaks TLS to an https server with a self-signed certificate', async () => {
    const server: Running = await httpServer(
      (request, response) => response.end(`tls ${request.url}`),
      selfSignedCertificate(),
    );
    defer(() => server.close());
    const response = await client().sendRaw(
      raw(server.port, 'GET /t HTTP/1.1\r\nHost: localhost\r\n\r\n', 'https'),
    );
    expect(response.body.toString()).toBe('tls /t');
  });
});

describe('ChunkedDecoder', () => {
  it('decodes any split of a chunked body into the same data', () => {
    const encoded = Buffer.from('3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n');
    for (let split = 0; split <= encoded.length; split++) {
      const decoder = new ChunkedDecoder();
      const out: Buffer[] = [];
      const keep = (data: Buffer) => out.push(data) > 0;
      const doneEarly = decoder.feed(encoded.subarray(0, split), keep);
      const done = doneEarly || decoder.feed(encoded.subarray(split), keep);
      expect(done).toBe(true);
      expect(Buffer.concat(out).toString()).toBe('abc0123456789abcdef');
    }
  });
});
