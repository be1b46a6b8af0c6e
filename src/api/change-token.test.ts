import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import { ENGINES, postgresTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { type RunningApi, serveApi } from './testing/serve.js';

async function until(condition: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An API served from one store, and a second store on the same database writing behind its back. */
interface Served {
  readonly database: TestDatabase;
  readonly served: Store;
  readonly writer: Store;
  readonly api: RunningApi;
  readonly key: string;
  readonly teamId: string;
}

async function serveWithWriter(database: TestDatabase, keyName: string): Promise<Served> {
  const served = await openStore(database.location);
  const writer = await openStore(database.location);
  const teamId = (await writer.teams.ensure('default')).id;
  const key = (await writer.keys.create({ teamId, name: keyName })).secret;
  return { database, served, writer, api: await serveApi(served), key, teamId };
}

async function closeAll(setup: Served | undefined): Promise<void> {
  await setup?.api.close();
  await setup?.served.close();
  await setup?.writer.close();
  await setup?.database.drop();
}

/** True once the store's PostgreSQL token comes from notifications (a generation, not a snapshot). */
const listening = async (store: Store) => (await store.changeToken()).startsWith('g');

describe.each(ENGINES)('cached pages and writes from another connection on $engine', ({ engine, create }) => {
  let setup: Served | undefined;
  let served: Store;
  let writer: Store;
  let api: RunningApi;
  let key: string;
  let teamId: string;

  beforeAll(async () => {
    setup = await serveWithWriter(await create(), 'elsewhere');
    ({ served, writer, api, key, teamId } = setup);
    if (engine === 'postgres') await until(() => listening(served), 'the store listens');
  });
  afterAll(() => closeAll(setup));

  const names = async () =>
    (await api.get('/v1/scans', key)).body.data.map((scan: { name: string }) => scan.name) as string[];

  it('drops a cached page when another store commits a write', async () => {
    await writer.scans.create({ teamId, name: 'before' });
    await until(async () => (await names()).includes('before'), 'the first scan is served');
    await until(
      async () => (await api.get('/v1/scans', key)).headers.get('x-cache') === 'hit',
      'the page is cached',
    );
    await writer.scans.create({ teamId, name: 'after' });
    // Another process's commit is seen once its notification arrives (well under a second).
    await until(async () => (await names()).includes('after'), 'the write is served', 1_000);
    expect(await names()).toEqual(['after', 'before']);
    if (engine === 'postgres') expect(await listening(served)).toBe(true);
  });

  it('does not move its token for writes to another database on the same server', async () => {
    if (engine !== 'postgres') return;
    const other = await postgresTestDatabase();
    const elsewhere = await openStore(other.location);
    try {
      const before = await served.changeToken();
      await elsewhere.teams.ensure('unrelated');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await served.changeToken()).toBe(before);
    } finally {
      await elsewhere.close();
      await other.drop();
    }
  });
});

describe('a lost LISTEN connection on PostgreSQL', () => {
  let setup: Served | undefined;
  let served: Store;
  let writer: Store;
  let api: RunningApi;
  let key: string;
  let teamId: string;

  beforeAll(async () => {
    setup = await serveWithWriter(await postgresTestDatabase(), 'lost');
    ({ served, writer, api, key, teamId } = setup);
  });
  afterAll(() => closeAll(setup));

  const terminateListener = () =>
    sql`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'keyhole-listen' and datname = current_database()`.execute(
      writer.connection.db,
    );

  const cached = () =>
    until(
      async () => (await api.get('/v1/scans', key)).headers.get('x-cache') === 'hit',
      'the page is cached',
    );

  /**
   * With a page cached after a write named `first`, cuts the listening connection and commits a
   * write named `missed` while nothing listens (no notification will ever say so); resolves once
   * the store noticed the loss.
   */
  const missAWrite = async (first: string, missed: string) => {
    await until(() => listening(served), 'the store listens');
    await writer.scans.create({ teamId, name: first });
    await cached();
    const cachedUnder = await served.changeToken();
    await terminateListener();
    await writer.scans.create({ teamId, name: missed });
    await until(async () => (await served.changeToken()) !== cachedUnder, 'the loss is noticed');
  };

  it('never serves a page cached before the loss once a write was missed', async () => {
    await missAWrite('before', 'missed');
    const page = await api.get('/v1/scans', key);
    expect(page.headers.get('x-cache')).toBeNull();
    expect(page.body.data.map((scan: { name: string }) => scan.name)).toEqual(['missed', 'before']);
  });

  it('listens again after the loss, counting everything missed meanwhile as a change', async () => {
    // No request reaches the API until the store listens again: its cache never saw the gap.
    await missAWrite('later', 'missed again');
    await until(() => listening(served), 'the store listens again');
    expect((await api.get('/v1/scans', key)).body.data[0]?.name).toBe('missed again');
    await cached();
    await writer.scans.create({ teamId, name: 'latest' });
    await until(
      async () => (await api.get('/v1/scans', key)).body.data[0]?.name === 'latest',
      'the write is served',
      1_000,
    );
  });
});
