import { describe, expect, it } from 'vitest';
import { RaceGate } from './race-gate.js';
import { closedAfterEach } from './testing/cleanups.js';
import { get, okResponse, rawServer } from './testing/servers.js';

const { client, defer } = closedAfterEach();

/** Resolves after `ms`; the gate's promises are compared against it. */
const elapsed = (ms: number) => new Promise<'later'>((resolve) => setTimeout(() => resolve('later'), ms));

describe('RaceGate', () => {
  it('opens when every party has arrived, not before', async () => {
    const gate = new RaceGate(2, 10_000);
    const first = gate.arrive();
    expect(await Promise.race([first.then(() => 'open'), elapsed(50)])).toBe('later');
    await gate.arrive();
    await first;
    expect(gate.isOpen).toBe(true);
  });

  it('opens for the parties that arrived when the others withdraw', async () => {
    const gate = new RaceGate(3, 10_000);
    const first = gate.arrive();
    gate.withdraw();
    expect(gate.isOpen).toBe(false);
    gate.withdraw();
    await first;
    expect(gate.isOpen).toBe(true);
  });

  it('opens after its hold time when a party never comes', async () => {
    const gate = new RaceGate(2, 100);
    const started = performance.now();
    await gate.arrive();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('lets a party through at once once it is open', async () => {
    const gate = new RaceGate(1, 10_000);
    await gate.arrive();
    expect(await Promise.race([gate.arrive().then(() => 'open'), elapsed(50)])).toBe('open');
  });
});

describe('a request sent at a race gate', () => {
  it('goes on a connection of its own, all but its last byte first, the last byte when the gate opens', async () => {
    const server = await rawServer((_head, socket) => socket.write(okResponse('ok')));
    defer(server.close);
    const http = client();
    const gate = new RaceGate(3, 10_000);
    const sent = [
      http.send(get(server.port, '/a'), { race: gate }),
      http.send(get(server.port, '/b'), { race: gate }),
    ];
    // Two of three parties: both connections carry their request but its final byte.
    await expect.poll(() => server.received.filter((log) => log.length > 0).length).toBe(2);
    await elapsed(50);
    expect(server.heads).toEqual([]);
    for (const log of server.received) expect(Buffer.concat(log).toString('latin1')).toMatch(/\r\n\r$/);
    sent.push(http.send(get(server.port, '/c'), { race: gate }));
    const responses = await Promise.all(sent);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(server.connections()).toBe(3);
    expect(server.heads.map((head) => head.split(' ')[1]).sort()).toEqual(['/a', '/b', '/c']);
  });

  it('does not hold the others when one cannot connect', async () => {
    const server = await rawServer((_head, socket) => socket.write(okResponse('ok')));
    defer(server.close);
    const http = client();
    const gate = new RaceGate(2, 10_000);
    const started = performance.now();
    const [ok, refused] = await Promise.allSettled([
      http.send(get(server.port, '/a'), { race: gate }),
      http.send(get(1, '/b'), { race: gate }),
    ]);
    expect(ok.status).toBe('fulfilled');
    expect(refused.status).toBe('rejected');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
