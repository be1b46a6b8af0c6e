/**
 * The built `keyhole worker` as a process: one killed with SIGKILL mid-chunk has its chunk run again
 * by another worker once its lease runs out, without duplicate findings; SIGTERM gives the chunk
 * back and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';

const binary = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'dist/cli/main.js');

let host: TestHost;
let ws: Workspace;
let db: TestDatabase;
let store: Store;
let url: string;
/** While set, `/hold/found` is not answered until it is cleared. */
let holding: Promise<void> | undefined;
let release = () => {};
const children: ChildProcess[] = [];

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path === '/hold/found') await holding;
    return request.path.endsWith('/found') ? { body: 'ok found' } : { status: 404 };
  });
  ws = new Workspace();
  ws.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
  ws.file('targets.txt', `${host.origin}/a\n${host.origin}/hold\n${host.origin}/b\n`);
  db = await postgresTestDatabase();
  if (db.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
  url = db.location.url;
  store = await openStore(db.location);
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  release();
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await host?.close();
  ws?.remove();
});

function hold(): void {
  holding = new Promise((resolve) => {
    release = () => {
      holding = undefined;
      resolve();
    };
  });
}

interface Running {
  readonly child: ChildProcess;
  err: string;
  readonly exit: Promise<number | null>;
}

function keyholeWorker(...argv: string[]): Running {
  const child = spawn(
    process.execPath,
    [binary, 'worker', '--db', url, '--poll', '0.05', '-c', '1', ...argv],
    {
      cwd: ws.dir,
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  children.push(child);
  const running: Running = {
    child,
    err: '',
    exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  child.stderr?.on('data', (chunk: Buffer) => {
    running.err += chunk.toString('utf8');
  });
  return running;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(25);
  }
}

async function queue(name: string): Promise<string> {
  const result = await ws.cli([
    'scan',
    '--queue',
    '--db',
    url,
    '-l',
    'targets.txt',
    '-t',
    'found.yaml',
    '--name',
    name,
  ]);
  expect(result.code).toBe(0);
  return result.out.trim();
}

async function matchedAt(scanId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const f of store.findings.allOfScan(scanId)) found.push(f.event['matched-at'] ?? '');
  return found.sort();
}

describe('keyhole worker as a process', () => {
  it('has the chunk of a worker killed mid-chunk run again by another, without duplicate findings', async () => {
    hold();
    const scanId = await queue('killed');
    const dead = keyholeWorker('--lease', '1');
    await until(
      async () =>
        (await matchedAt(scanId)).length === 1 && host.requests.some((r) => r.path === '/hold/found'),
    );
    dead.child.kill('SIGKILL');
    expect(await dead.exit).toBeNull();
    const [chunk] = await store.chunks.ofScan(scanId);
    expect(chunk).toMatchObject({ state: 'running', attempts: 1 });
    release();

    const other = keyholeWorker('--lease', '1');
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    other.child.kill('SIGTERM');
    expect(await other.exit).toBe(0);
    expect(await matchedAt(scanId)).toEqual([
      `${host.origin}/a/found`,
      `${host.origin}/b/found`,
      `${host.origin}/hold/found`,
    ]);
    expect(await store.scans.require(scanId)).toMatchObject({
      status: 'finished',
      progress: 100,
      severity: { info: 3 },
    });
    expect((await store.chunks.ofScan(scanId))[0]).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('on SIGTERM, gives back the chunk in hand, keeps what it found and exits 0', async () => {
    hold();
    const scanId = await queue('terminated');
    const worker = keyholeWorker();
    await until(
      async () =>
        (await matchedAt(scanId)).length === 1 && host.requests.some((r) => r.path === '/hold/found'),
    );
    worker.child.kill('SIGTERM');
    expect(await worker.exit).toBe(0);
    expect(worker.err).toMatch(/gave back chunk 1\/1 of scan [a-z0-9]{20}/);
    expect(worker.err).toContain('worker stopped: 0 chunks done, 1 given back');
    expect(worker.err).not.toMatch(/\n\s+at /);
    expect((await store.chunks.ofScan(scanId))[0]).toMatchObject({
      state: 'pending',
      attempts: 0,
      worker: null,
    });
    expect(await store.scans.require(scanId)).toMatchObject({ status: 'running' });
    expect(await matchedAt(scanId)).toEqual([`${host.origin}/a/found`]);

    release();
    const next = keyholeWorker();
    await until(async () => (await store.scans.require(scanId)).status === 'finished');
    next.child.kill('SIGTERM');
    expect(await next.exit).toBe(0);
    expect((await matchedAt(scanId)).length).toBe(3);
  });
});
