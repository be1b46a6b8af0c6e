import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from './id.js';
import { TRIGRAM_CANDIDATES } from './search.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';
import { chunks } from './tx.js';

const NAMES = [
  '100% done',
  '100x done',
  'a_b_c',
  'axbxc',
  'Say "Hello" twice',
  "it's ready",
  'back\\slash\\path',
  'ÜNÏCÖDÉ Scan',
  'ünïcödé lower',
  '東京タワー scan',
  'Straße audit',
  'plain',
];

describe.each(ENGINES)('scan search on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let team = '';

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    team = (await store.teams.ensure('search')).id;
    for (const name of NAMES) await store.scans.create({ teamId: team, name });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const names = async (search: string, teamId = team) =>
    (await store.scans.list(teamId, { offset: 0, limit: 1000, search })).map((s) => s.name).sort();

  it.each([
    ['00%', ['100% done']],
    ['0% d', ['100% done']],
    ['a_b', ['a_b_c']],
    ['_b_', ['a_b_c']],
    ['"hello"', ['Say "Hello" twice']],
    ["t's", ["it's ready"]],
    ['h\\p', ['back\\slash\\path']],
    ['\\sl', ['back\\slash\\path']],
    ['ünïcödé', ['ÜNÏCÖDÉ Scan', 'ünïcödé lower']],
    ['ÜNÏCÖ', ['ÜNÏCÖDÉ Scan', 'ünïcödé lower']],
    ['東京タ', ['東京タワー scan']],
    ['STRASSE', []],
    ['straße', ['Straße audit']],
    ['SCAN', ['ÜNÏCÖDÉ Scan', '東京タワー scan']],
    ['done', ['100% done', '100x done']],
    ['%', ['100% done']],
    ['_', ['a_b_c']],
    ['no such name', []],
  ])('finds %j literally and case-insensitively', async (term, expected) => {
    expect(await names(term)).toEqual([...expected].sort());
  });

  it('finds a name typed after the search index was built, and never another team’s', async () => {
    const other = (await store.teams.ensure('other')).id;
    await store.scans.create({ teamId: other, name: 'quarterly pentest' });
    expect(await names('quarterly')).toEqual([]);
    expect(await names('quarterly', other)).toEqual(['quarterly pentest']);
  });

  it('pages a term more scans hold than the trigram lookup takes, newest first, as a plain comparison does', async () => {
    const common = (await store.teams.ensure('common')).id;
    const start = Date.UTC(2024, 0, 1);
    const count = TRIGRAM_CANDIDATES + 150;
    for (const part of chunks(
      Array.from({ length: count }, (_, i) => i),
      500,
    )) {
      await store.connection.db
        .insertInto('scan')
        .values(
          part.map((i) => {
            const name = i % 2 === 0 ? `Weekly Sweep ${i}` : `weekly other ${i}`;
            const at = start + Math.floor(i / 3) * 1000;
            return {
              id: newId(),
              team_id: common,
              name,
              name_folded: name.toLowerCase(),
              status: 'finished',
              created_at: at,
              updated_at: at,
            };
            // The other columns have their defaults.
          }) as never,
        )
        .execute();
    }
    const expected = await store.connection.db
      .selectFrom('scan')
      .select('name')
      .where('team_id', '=', common)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    for (const [term, matches] of [
      ['WEEKLY', (n: string) => n.toLowerCase().includes('weekly')],
      ['sweep 21', (n: string) => n.toLowerCase().includes('sweep 21')],
    ] as const) {
      const all = expected.map((r) => r.name).filter(matches);
      for (const offset of [0, 900, all.length - 5]) {
        const page = await store.scans.list(common, { offset, limit: 100, search: term });
        expect(
          page.map((s) => s.name),
          `${term} at ${offset}`,
        ).toEqual(all.slice(offset, offset + 100));
      }
    }
  });
});
