/** `keyhole worker -bs`: a queued chunk's runs of one template at once, seen by a real HTTP server. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const TEMPLATES = ['w1', 'w2', 'w3'];

let host: TestHost;
let ws: Workspace;
let db: TestDatabase;
let store: Store;
let url: string;
const inFlight = new Map<string, number>();
const peak = new Map<string, number>();
let total = 0;
let peakTotal = 0;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    const template = request.path.split('/').at(-1) ?? '';
    inFlight.set(template, (inFlight.get(template) ?? 0) + 1);
    peak.set(template, Math.max(peak.get(template) ?? 0, inFlight.get(template) ?? 0));
    peakTotal = Math.max(peakTotal, ++total);
    try {
      await sleep(50);
      return { body: 'ok' };
    } finally {
      inFlight.set(template, (inFlight.get(template) ?? 1) - 1);
      total--;
    }
  });
  ws = new Workspace();
  for (const id of TEMPLATES) ws.file(`${id}.yaml`, pathsTemplate(id, [`{{BaseURL}}/${id}`]));
  ws.file('targets.txt', `${Array.from({ length: 8 }, (_, i) => `${host.origin}/t${i}`).join('\n')}\n`);
  db = await postgresTestDatabase();
  if (db.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
  url = db.location.url;
  store = await openStore(db.location);
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await host?.close();
  ws?.remove();
});

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

describe('keyhole worker -bs', () => {
  it('runs no template of its chunk on more than -bs targets at once, and no more than -c in all', async () => {
    const templates = TEMPLATES.flatMap((id) => ['-t', `${id}.yaml`]);
    const queued = await ws.cli(['scan', '--queue', '--db', url, '-l', 'targets.txt', ...templates]);
    expect(queued.code, queued.err).toBe(0);
    const scanId = queued.out.trim();

    const io = memoryIo({ cwd: ws.dir });
    const exit = run(['worker', '--db', url, '--poll', '0.05', '-c', '10', '-bs', '2', '-rl', '0'], io);
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    io.interrupt();
    expect(await exit, io.err()).toBe(0);

    expect(host.requests).toHaveLength(24);
    for (const id of TEMPLATES) expect(peak.get(id)).toBe(2);
    expect(peakTotal).toBe(6);
  });
});
