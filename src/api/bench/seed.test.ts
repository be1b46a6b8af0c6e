import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/index.js';
import { ENGINES, type TestDatabase } from '../../store/testing/databases.js';
import { retestItem } from '../serialize.js';
import { fillServedFindingFields, fillServedFindingHeads, fillServedRetestFields, seed } from './seed.js';

const WORDS = ['prod billing', 'staging auth', 'qa café'];

describe.each(ENGINES)("the benchmark's seed on $engine", ({ engine, create }) => {
  let database: TestDatabase;
  let store: Store;
  let team = '';

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    team = (await store.teams.ensure('bench')).id;
    await seed(store, team, { scans: 300, findings: 50, retests: 50 }, (i) => `${WORDS[i % 3]} scan ${i}`);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('leaves searches finding what a plain comparison of the names finds', async () => {
    const all = await store.scans.list(team, { offset: 0, limit: 1000 });
    expect(all).toHaveLength(300);
    for (const term of ['billing', 'CAFÉ', 'scan 29', 'scan 299', 'no such scan']) {
      const found = await store.scans.list(team, { offset: 0, limit: 1000, search: term });
      const expected = all.filter((scan) => scan.name.toLowerCase().includes(term.toLowerCase()));
      expect(
        found.map((scan) => scan.id),
        term,
      ).toEqual(expected.map((scan) => scan.id));
    }
  });

  it('counts the pages deep offsets find through', async () => {
    const deep = await store.scans.list(team, { offset: 250, limit: 10 });
    const all = await store.scans.list(team, { offset: 0, limit: 1000 });
    expect(deep.map((scan) => scan.id)).toEqual(all.slice(250, 260).map((scan) => scan.id));
  });

  it('seeds retest results served as recorded ones are, and fills the served fields of kept ones alike', async () => {
    const window = { offset: 0, limit: 50 };
    const served = async () =>
      JSON.parse(`[${(await store.retests.servedPage(team, window))?.toString('utf8')}]`);
    const items = (await store.retests.list(team, window)).map(retestItem);
    expect(items).toHaveLength(50);
    expect(await served()).toEqual(items);
    await store.connection.db.updateTable('retest').set({ served_fields: null }).execute();
    expect(await fillServedRetestFields(store)).toBe(50);
    expect(await fillServedRetestFields(store)).toBe(0);
    expect(await served()).toEqual(items);
  });

  it('seeds findings served as recorded ones are, and fills the served texts of kept ones alike', async () => {
    const window = { offset: 0, limit: 50 };
    const page = async () => (await store.findingPages.servedPage(team, {}, window))?.items.toString('utf8');
    const before = await page();
    expect(before).toBeDefined();
    await store.connection.db
      .updateTable('finding')
      .set({ served_fields: null, served_head: null })
      .execute();
    expect(await fillServedFindingFields(store)).toBe(50);
    // Only PostgreSQL's pages read the heads.
    expect(await fillServedFindingHeads(store)).toBe(engine === 'postgres' ? 50 : 0);
    expect(await fillServedFindingHeads(store)).toBe(0);
    expect(await page()).toBe(before);
  });
});
