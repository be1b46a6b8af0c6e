import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeListener } from './change-listener.js';
import { CHANGE_CHANNEL } from './migrations.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';
import { TcpProxy } from './testing/proxy.js';

/** A heartbeat every 100 ms: a connection unheard for 300 ms is dropped. */
const HEARTBEAT_MS = 100;

async function until(check: () => boolean, what: string, withinMs = 5_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > withinMs) throw new Error(`${what} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the listener of changes on PostgreSQL', () => {
  let database: TestDatabase;
  let url: string;
  let proxy: TcpProxy;
  let notifier: pg.Client;
  const listeners: ChangeListener[] = [];

  function listener(through: string) {
    let changes = 0;
    const listening = new ChangeListener(through, () => changes++, {
      heartbeatMs: HEARTBEAT_MS,
      // Announced by another connection, as the store's own announce them.
      announce: async (payload) => {
        await notifier.query('select pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
      },
    });
    listeners.push(listening);
    listening.start();
    return { listening, changes: () => changes };
  }

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('a PostgreSQL database');
    url = database.location.url;
    const server = new URL(url);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    notifier = new pg.Client({ connectionString: url });
    await notifier.connect();
  });
  afterAll(async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await notifier?.end();
    await proxy?.close();
    await database?.drop();
  });

  it('counts as listening once it hears itself, and calls that a change; heartbeats are no changes', async () => {
    const one = listener(url);
    const two = listener(url);
    await until(() => one.listening.listening && two.listening.listening, 'both listen');
    // Each heard its own heartbeat and the other's, many times over: one change each, on starting.
    await pause(5 * HEARTBEAT_MS);
    expect([one.changes(), two.changes()]).toEqual([1, 1]);
    await notifier.query(`notify ${CHANGE_CHANNEL}`);
    await until(() => one.changes() === 2 && two.changes() === 2, 'both hear the change');
  });

  it('stops counting as listening when it no longer hears itself, and listens again once it does', async () => {
    const server = new URL(url);
    server.port = String(proxy.port);
    const through = listener(server.href);
    await until(() => through.listening.listening, 'it listens through the proxy');
    const before = through.changes();
    // The network goes silent: no error, no closed socket, only nothing heard.
    proxy.mute();
    await until(() => !through.listening.listening, 'it notices it hears nothing', 10 * HEARTBEAT_MS);
    // A change announced meanwhile never reaches it.
    await notifier.query(`notify ${CHANGE_CHANNEL}`);
    proxy.unmute();
    await until(() => through.listening.listening, 'it listens again', 15_000);
    // Listening again counts as a change: whatever was missed meanwhile.
    expect(through.changes()).toBe(before + 1);
  }, 30_000);
});
