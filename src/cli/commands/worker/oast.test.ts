/**
 * Out-of-band templates in a queued scan: each `keyhole worker` registers its own session with the
 * interactsh server, and the findings its callbacks confirm land in the one scan.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Interaction, type OastServer, startOastServer } from '../../../oast/index.js';
import { type BlindSsrfApp, blindSsrfApp } from '../../../oast/testing/blind-ssrf.js';
import { Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

let listener: OastServer;
let app: BlindSsrfApp;
let ws: Workspace;
let db: TestDatabase;
let store: Store;
let url: string;
const interactions: Interaction[] = [];

const BLIND_SSRF = `id: blind-ssrf
info:
  name: Blind SSRF
  author: keyhole
  severity: high
http:
  - method: GET
    path:
      - "{{RootURL}}/fetch?url=http://{{interactsh-url}}/"
    matchers:
      - type: word
        part: interactsh_protocol
        words: ["http"]
`;

beforeAll(async () => {
  listener = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    dns: { host: '127.0.0.1', port: 0 },
    onInteraction: (interaction) => interactions.push(interaction),
  });
  app = await blindSsrfApp(listener.dns!, listener.http.port);
  ws = new Workspace();
  ws.file('blind-ssrf.yaml', BLIND_SSRF);
  ws.file('targets.txt', `${[0, 1, 2, 3].map((i) => `${app.origin}/t${i}`).join('\n')}\n`);
  db = await postgresTestDatabase();
  if (db.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
  url = db.location.url;
  store = await openStore(db.location);
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await app?.close();
  await listener?.close();
  ws?.remove();
});

function worker(...argv: string[]) {
  const io = memoryIo({ cwd: ws.dir });
  const exit = run(
    [
      'worker',
      '--db',
      url,
      '--poll',
      '0.05',
      '-c',
      '1',
      '-iserver',
      listener.url,
      '-interactions-poll-duration',
      '0.2',
      '-interactions-cooldown-period',
      '1',
      ...argv,
    ],
    io,
  );
  return {
    io,
    stop(): Promise<number> {
      io.interrupt();
      return exit;
    },
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

describe('keyhole worker with out-of-band templates', () => {
  it('registers its own session once a chunk needs one; the findings of both workers land in the scan', async () => {
    const a = worker();
    const b = worker();
    await sleep(300);
    // No chunk yet: nothing registered, nothing said.
    expect(a.io.err() + b.io.err()).not.toContain('out-of-band');
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-l',
      'targets.txt',
      '-t',
      'blind-ssrf.yaml',
      '--chunk-size',
      '1',
    ]);
    expect(queued.code).toBe(0);
    const scanId = queued.out.trim();
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    for (const w of [a, b]) {
      expect(w.io.err()).toContain(`out-of-band callbacks go to the interactsh server ${listener.url}`);
    }

    const findings = [];
    for await (const f of store.findings.allOfScan(scanId)) findings.push(f.event);
    expect(findings.map((e) => e['template-id'])).toEqual(Array(4).fill('blind-ssrf'));
    expect(findings.every((e) => e.interaction?.protocol === 'http')).toBe(true);
    // One correlation id per worker: the first 20 characters of each callback's name.
    const sessions = new Set(interactions.map((i) => i['unique-id'].slice(0, 20)));
    expect(sessions.size).toBe(2);
    const ofFindings = new Set(findings.map((e) => e.interaction?.['unique-id'].slice(0, 20)));
    expect(ofFindings).toEqual(sessions);
  }, 60_000);

  it('fails the chunk, saying why, when the interactsh server cannot be used', async () => {
    const w = worker('-iserver', 'http://127.0.0.1:9', '--max-attempts', '1');
    const queued = await ws.cli([
      'scan',
      '--queue',
      '--db',
      url,
      '-u',
      `${app.origin}/alone`,
      '-t',
      'blind-ssrf.yaml',
    ]);
    const scanId = queued.out.trim();
    await until(async () => (await store.scans.require(scanId)).status === 'failed');
    expect(await w.stop()).toBe(0);
    expect((await store.scans.require(scanId)).failureReason).toMatch(
      /cannot reach the interactsh server http:\/\/127\.0\.0\.1:9/,
    );
  }, 60_000);
});
