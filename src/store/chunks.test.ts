/** The queue of scan chunks on a real PostgreSQL: claims, leases, completion exactly once, give-back. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkClaim } from './chunks.js';
import { StoreRequestError } from './errors.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from './testing/databases.js';

describe('scan chunks on PostgreSQL', () => {
  let database: TestDatabase;
  let store: Store;
  let teamId: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location, { poolSize: 30 });
    teamId = (await store.teams.ensure('default')).id;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** A queued scan of `chunks` chunks of 2 targets, 1 template. */
  async function queued(chunks: number) {
    const targets = Array.from({ length: chunks * 2 }, (_, i) => `https://t${i}.test`);
    return store.scans.create({
      teamId,
      name: 'queued',
      status: 'queued',
      isCloud: true,
      targets,
      templates: [{ id: 't', path: 't.yaml', content: 'id: t' }],
      chunks: Array.from({ length: chunks }, (_, i) => ({ firstTarget: i * 2, targetCount: 2, runs: 2 })),
    });
  }

  it('gives each worker its own chunk, marks the scan running, and finishes it when the last chunk is done', async () => {
    const scan = await queued(2);
    expect(scan).toMatchObject({ status: 'queued', isCloud: true, isOss: false, totalTarget: 4 });
    const a = (await store.chunks.claim('a', 60_000)) as ChunkClaim;
    const b = (await store.chunks.claim('b', 60_000)) as ChunkClaim;
    expect(await store.chunks.claim('c', 60_000)).toBeUndefined();
    expect([a.chunk, b.chunk].sort()).toEqual([0, 1]);
    expect(a).toMatchObject({ scanId: scan.id, teamId, chunkCount: 2, targetCount: 2, attempts: 1 });
    expect(await store.scans.targets(scan.id, { first: b.firstTarget, count: 2 })).toEqual(
      b.chunk === 0 ? ['https://t0.test', 'https://t1.test'] : ['https://t2.test', 'https://t3.test'],
    );
    expect((await store.scans.require(scan.id)).status).toBe('running');

    expect(await store.chunks.renew(a, 1, 60_000)).toBe(true);
    expect((await store.scans.require(scan.id)).progress).toBe(25);
    expect(await store.chunks.complete(a)).toBe('done');
    expect((await store.scans.require(scan.id)).progress).toBe(50);
    expect(await store.chunks.complete(b)).toBe('scan-finished');
    expect(await store.scans.require(scan.id)).toMatchObject({ status: 'finished', progress: 100 });
    expect(await store.chunks.complete(b)).toBe('lost');
  });

  it('hands a chunk whose lease ran out to another worker; the first can then change nothing', async () => {
    const scan = await queued(1);
    const first = (await store.chunks.claim('dead', 300)) as ChunkClaim;
    expect(await store.chunks.claim('other', 60_000)).toBeUndefined();
    await sleep(400);
    const second = (await store.chunks.claim('other', 60_000)) as ChunkClaim;
    expect(second).toMatchObject({ scanId: scan.id, chunk: first.chunk, attempts: 2 });
    expect(await store.chunks.renew(first, 1, 60_000)).toBe(false);
    expect(await store.chunks.complete(first)).toBe('lost');
    expect(await store.chunks.giveBack(first)).toBe('lost');
    expect(await store.chunks.complete(second)).toBe('scan-finished');
  });

  it('takes back a chunk given back on a clean stop without counting the try', async () => {
    const scan = await queued(1);
    const claim = (await store.chunks.claim('a', 60_000)) as ChunkClaim;
    expect(await store.chunks.giveBack(claim)).toBe('pending');
    const again = (await store.chunks.claim('b', 60_000)) as ChunkClaim;
    expect(again).toMatchObject({ scanId: scan.id, attempts: 1 });
    expect(await store.chunks.complete(again)).toBe('scan-finished');
  });

  it('fails the scan once a chunk has failed as often as allowed, and stops handing out its other chunks', async () => {
    const scan = await queued(2);
    const failure = { reason: 'the store refused a finding', maxAttempts: 2 };
    const first = (await store.chunks.claim('a', 60_000)) as ChunkClaim;
    const other = (await store.chunks.claim('b', 60_000)) as ChunkClaim;
    expect(await store.chunks.giveBack(first, failure)).toBe('pending');
    const second = (await store.chunks.claim('a', 60_000)) as ChunkClaim;
    expect(second).toMatchObject({ chunk: first.chunk, attempts: 2 });
    expect(await store.chunks.giveBack(second, failure)).toBe('scan-failed');
    expect(await store.scans.require(scan.id)).toMatchObject({
      status: 'failed',
      failureReason: `chunk ${first.chunk + 1} of 2 failed 2 times: the store refused a finding`,
    });
    expect(await store.chunks.renew(other, 1, 60_000)).toBe(false);
    expect(await store.chunks.complete(other)).toBe('done');
    expect((await store.scans.require(scan.id)).status).toBe('failed');
    expect(await store.chunks.claim('c', 60_000)).toBeUndefined();
  });

  it('finishes a scan exactly once when all its chunks complete at the same moment', async () => {
    const scan = await queued(24);
    const claims = await Promise.all(
      Array.from({ length: 24 }, (_, i) => store.chunks.claim(`w${i}`, 60_000) as Promise<ChunkClaim>),
    );
    expect(new Set(claims.map((c) => c.chunk)).size).toBe(24);
    const ends = await Promise.all(claims.map((c) => store.chunks.complete(c)));
    expect(ends.filter((e) => e === 'scan-finished')).toHaveLength(1);
    expect(ends.filter((e) => e === 'done')).toHaveLength(23);
    expect(await store.scans.require(scan.id)).toMatchObject({ status: 'finished', progress: 100 });
    expect((await store.chunks.ofScan(scan.id)).every((c) => c.state === 'done')).toBe(true);
  });
});

describe('scan chunks on SQLite', () => {
  it('are refused with a message naming PostgreSQL', async () => {
    const database = await sqliteTestDatabase();
    const store = await openStore(database.location);
    try {
      await expect(store.chunks.claim('a', 1000)).rejects.toThrow(StoreRequestError);
      await expect(store.chunks.claim('a', 1000)).rejects.toThrow(/needs PostgreSQL/);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
