import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import { sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { buildApi } from './server.js';
import {
  parseResponses,
  type RunningApi,
  type ServedDatabase,
  type SocketResponse,
  sendOnSocket,
  serveDatabase,
} from './testing/serve.js';

/** The API's error shape, sent as JSON with an exact length. */
function expectApiError(response: SocketResponse | undefined, status: number, code: string): void {
  expect(response?.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(response?.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(response?.body ?? '');
  expect(body).toEqual({ message: expect.any(String), code });
  expect(body.message.length).toBeGreaterThan(10);
}

describe('requests the API does not get to read', () => {
  let served: ServedDatabase | undefined;
  let api: RunningApi;
  let port: number;

  beforeAll(async () => {
    served = await serveDatabase(await sqliteTestDatabase());
    api = served.api;
    port = Number(new URL(api.url).port);
  });
  afterAll(() => served?.close());

  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['an HTTP/2 preface on the HTTP/1.1 port', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['a NUL in a header value', 'GET /v1/scans HTTP/1.1\r\nHost: a\r\nX-A: a\0b\r\n\r\n'],
    [
      'both Transfer-Encoding and Content-Length',
      'GET /v1/scans HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    ],
  ])('answers %s with a JSON 400 and closes the connection', async (_what, request) => {
    const [response, ...more] = parseResponses(await sendOnSocket(port, request));
    expectApiError(response, 400, 'bad_request');
    expect(response?.headers.connection).toBe('close');
    expect(more).toEqual([]);
  });

  it.each([
    ['a header', `GET /v1/scans HTTP/1.1\r\nHost: a\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a URL', `GET /v1/scans?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`],
  ])('answers %s too long for the 16 KB of a request head with a JSON 431', async (_what, request) => {
    const [response] = parseResponses(await sendOnSocket(port, request));
    expectApiError(response, 431, 'headers_too_large');
  });

  it('answers a URL that does not decode with a JSON 400', async () => {
    const [response] = parseResponses(
      await sendOnSocket(port, 'GET /v1/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'),
    );
    expectApiError(response, 400, 'bad_request');
  });

  it('answers an HTTP/1.1 request without a Host header with a JSON 400', async () => {
    const [response] = parseResponses(
      await sendOnSocket(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'),
    );
    expectApiError(response, 400, 'bad_request');
    expect(JSON.parse(response?.body ?? '').message).toContain('Host');
  });

  it('answers an Expect it does not know with a JSON 417', async () => {
    const [response] = parseResponses(
      await sendOnSocket(
        port,
        'GET /v1/scans HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
      ),
    );
    expectApiError(response, 417, 'expectation_failed');
  });

  it('still answers HTTP/1.0 without a Host header', async () => {
    const [response] = parseResponses(await sendOnSocket(port, 'GET /healthz HTTP/1.0\r\n\r\n'));
    expect(response?.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(response?.body ?? '')).toEqual({ status: 'ok' });
  });
});

describe('a request that arrives while the server closes', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('is answered with a JSON 503 and Retry-After, after the request in flight is finished', async () => {
    const app = await buildApi({ store, rateLimit: 0 });
    let entered = () => {};
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/held', async () => {
      entered();
      await released;
      return { held: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const lateArrived = new Promise<void>((resolve) =>
      app.server.on('request', (request: { url?: string }) => {
        if (request.url === '/healthz') resolve();
      }),
    );
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const socket = connect(address.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const closedByServer = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    try {
      socket.write('GET /held HTTP/1.1\r\nHost: a\r\n\r\n');
      await inFlight;
      const closing = app.close();
      socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
      await lateArrived;
      release();
      await closing;
      await closedByServer;
    } finally {
      socket.destroy();
      await app.close();
    }
    const [held, late] = parseResponses(received);
    expect(held?.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(held?.body ?? '')).toEqual({ held: true });
    expectApiError(late, 503, 'shutting_down');
    expect(late?.headers['retry-after']).toBe('5');
  });
});
