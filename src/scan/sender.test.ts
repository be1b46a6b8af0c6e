import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, RateLimiter, TransportError } from '../http/index.js';
import { type CountingServer, get, httpServer } from '../http/testing/servers.js';
import { scanSender } from './sender.js';

let server: CountingServer;
const client = new HttpClient({ timeoutMs: 5000 });

beforeAll(async () => {
  server = await httpServer((_request, response) => response.end('ok'));
});

afterAll(async () => {
  await client.close();
  await server.close();
});

describe('scanSender', () => {
  it('sends every request and counts it as it goes out, without a rate limit', async () => {
    let sent = 0;
    const sender = scanSender(client, { onSend: () => sent++ });
    const responses = await Promise.all([1, 2, 3].map((n) => sender.send(get(server.port, `/${n}`))));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(sent).toBe(3);
  });

  it('fails a request at once as aborted once the scan is stopped, sending and counting nothing', async () => {
    let sent = 0;
    const sender = scanSender(client, { onSend: () => sent++ });
    const stop = new AbortController();
    stop.abort();
    const before = server.requests.length;
    const outcome = sender.send(get(server.port, '/late'), { signal: stop.signal });
    await expect(outcome).rejects.toBeInstanceOf(TransportError);
    await expect(outcome).rejects.toMatchObject({ kind: 'aborted' });
    expect(sent).toBe(0);
    expect(server.requests.length).toBe(before);
  });

  it('fails a request still waiting for its rate-limit turn when the scan is stopped', async () => {
    let sent = 0;
    const sender = scanSender(client, { rate: new RateLimiter(1), onSend: () => sent++ });
    const stop = new AbortController();
    await sender.send(get(server.port, '/first'), { signal: stop.signal });
    const waiting = sender.send(get(server.port, '/second'), { signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'aborted' });
    expect(sent).toBe(1);
  });
});
