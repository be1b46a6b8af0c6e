import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OastClient } from './client.js';
import type { Interaction } from './protocol.js';
import { type OastServer, startOastServer } from './server.js';
import { InteractionWatcher, type WatcherOptions } from './watcher.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function watch(options: Partial<WatcherOptions>, now?: () => number) {
  const server = await startOastServer({ domain: 'oast.test', http: { host: '127.0.0.1', port: 0 } });
  const client = await OastClient.register({ server: server.url, domain: server.domain });
  const watcher = new InteractionWatcher(
    client,
    { cacheSize: 100, evictionMs: 60_000, pollMs: 50, cooldownMs: 300, ...options },
    now,
  );
  closers.push(() => watcher.close().then(() => server.close()));
  return { server, watcher };
}

function callBack(server: OastServer, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.http.port, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the interaction watcher', () => {
  it('hands a run the interaction of its own name as soon as a poll brings it', async () => {
    const { server, watcher } = await watch({ cooldownMs: 5000 });
    const mine = watcher.newName();
    const other = watcher.newName();
    const seen: Interaction[] = [];
    const started = Date.now();
    const waiting = watcher.waitFor([mine.uniqueId], (i) => seen.push(i) > 0);
    await callBack(server, other.host);
    await callBack(server, mine.host);
    await waiting;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen.map((i) => i['unique-id'])).toEqual([mine.uniqueId]);
    expect(watcher.cached(other.uniqueId)).toHaveLength(1);
  });

  it('closes a run without callbacks once the cooldown has passed', async () => {
    const { watcher } = await watch({ cooldownMs: 300 });
    const started = Date.now();
    let calls = 0;
    await watcher.waitFor([watcher.newName().uniqueId], () => ++calls > 0);
    expect(calls).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('lets a run stop waiting before the cooldown', async () => {
    const { watcher } = await watch({ cooldownMs: 5000 });
    const stop = new AbortController();
    const started = Date.now();
    const waiting = watcher.waitFor([watcher.newName().uniqueId], () => true, stop.signal);
    setTimeout(() => stop.abort(), 100);
    await waiting;
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('sees a callback that landed at the end of the cooldown, by polling once more before closing', async () => {
    const { server, watcher } = await watch({ pollMs: 60_000, cooldownMs: 200 });
    const name = watcher.newName();
    const seen: Interaction[] = [];
    const waiting = watcher.waitFor([name.uniqueId], (i) => seen.push(i) > 0);
    await callBack(server, name.host);
    await waiting;
    expect(seen).toHaveLength(1);
  });

  it('gives a run the interactions that arrived before it started waiting, from the cache', async () => {
    const { server, watcher } = await watch({ cooldownMs: 5000 });
    const name = watcher.newName();
    await callBack(server, name.host);
    await watcher.pollNow();
    const started = Date.now();
    const seen: Interaction[] = [];
    await watcher.waitFor([name.uniqueId], (i) => seen.push(i) > 0);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('keeps the interactions of at most the cache size of names, forgetting the oldest first', async () => {
    const { server, watcher } = await watch({ cacheSize: 2 });
    const names = [watcher.newName(), watcher.newName(), watcher.newName()];
    for (const name of names) await callBack(server, name.host);
    await watcher.pollNow();
    expect(names.map((n) => watcher.cached(n.uniqueId).length)).toEqual([0, 1, 1]);
  });

  it('forgets cached interactions after the eviction time', async () => {
    let clock = 1_000_000;
    const { server, watcher } = await watch({ evictionMs: 60_000 }, () => clock);
    const name = watcher.newName();
    await callBack(server, name.host);
    await watcher.pollNow();
    expect(watcher.cached(name.uniqueId)).toHaveLength(1);
    clock += 60_001;
    expect(watcher.cached(name.uniqueId)).toHaveLength(0);
  });
});
