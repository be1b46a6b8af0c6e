import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_MS, SPAN_MS } from './buckets.js';
import { newId } from './id.js';
import { daysHolding, gramsOf, MAX_SPANS, SPAN_GAP_MS, spansOf } from './search.js';
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

describe('the days a search reads', () => {
  const day = (n: number) => Date.UTC(2024, 0, 1) + n * BUCKET_MS;

  it('are read by the runs of three characters of its term, or its one pair, counted as SQL counts characters', () => {
    expect(gramsOf('abab')).toEqual(['aba', 'bab']);
    expect(gramsOf('aaaa')).toEqual(['aaa']);
    expect(gramsOf('ab')).toEqual(['ab']);
    expect(gramsOf('a')).toEqual([]);
    expect(gramsOf('🙂x🙂y')).toEqual(['🙂x🙂', 'x🙂y']);
  });

  it('are those whose bit every gram sets, the last day of a span too, as either engine stores it', () => {
    const span = Date.UTC(2024, 0, 1) - (Date.UTC(2024, 0, 1) % SPAN_MS);
    const last = 2 ** 31;
    const rows = [
      // SQLite reads the 32nd day back as 2^31, PostgreSQL as the integer's sign bit.
      { gram: 'abc', span, days: last + 0b101 },
      { gram: 'bcd', span, days: (last | 0b100) >> 0 },
      { gram: 'abc', span: span + SPAN_MS, days: 0b11 },
      { gram: 'bcd', span: span + SPAN_MS, days: 0b10 },
      { gram: 'abc', span: span + 2 * SPAN_MS, days: 0b1000 },
      { gram: 'bcd', span: span + 2 * SPAN_MS, days: 0 },
      { gram: '', span: span + 2 * SPAN_MS, days: 0b1000 },
    ];
    expect(daysHolding(['abc', 'bcd'], rows)).toEqual([
      span + 2 * SPAN_MS + 3 * BUCKET_MS,
      span + SPAN_MS + BUCKET_MS,
      span + 31 * BUCKET_MS,
      span + 2 * BUCKET_MS,
    ]);
    expect(daysHolding(['abc', 'zzz'], rows)).toEqual([span + 2 * SPAN_MS + 3 * BUCKET_MS]);
  });

  it('join days closer than the gap into one span, newest first', () => {
    expect(spansOf([day(30), day(29), day(25), day(2)])).toEqual([
      { from: day(25), to: day(31) },
      { from: day(2), to: day(3) },
    ]);
    expect(spansOf([])).toEqual([]);
    expect(SPAN_GAP_MS).toBe(7 * BUCKET_MS);
  });

  it('split only at the widest gaps when the days lie apart in more spans than a search reads', () => {
    // 12 days 10 apart, but the gap before day 0 is the widest: it must stay a cut.
    const days = [...Array.from({ length: 11 }, (_, i) => day(200 - i * 10)), day(0)];
    const spans = spansOf(days);
    expect(spans).toHaveLength(MAX_SPANS);
    expect(spans.at(-1)).toEqual({ from: day(0), to: day(1) });
    expect(spans[0]!.to).toBe(day(201));
    // Every day lies in a span, and the spans do not overlap.
    for (const d of days) expect(spans.some((s) => s.from <= d && d < s.to)).toBe(true);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.to).toBeLessThanOrEqual(spans[i - 1]!.from);
  });
});

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

  it('pages every kind of term over days with gaps, newest first, as a plain comparison does', async () => {
    const spread = (await store.teams.ensure('days')).id;
    const start = Date.UTC(2024, 0, 1);
    const hour = 3_600_000;
    // 2,400 scans over 200 days: a common word in every day, a word of the 5 oldest days only,
    // a word of 20 days 9 days apart (more spans than a search reads apart), and names that
    // begin or end with the searched pairs.
    const scanNames = Array.from({ length: 2_400 }, (_, i) => {
      const day = Math.floor(i / 12);
      if (day < 5 && i % 3 === 0) return `Ancient Relic ${i}`;
      if (day % 9 === 0 && day >= 20 && i % 12 === 5) return `scattered Comet ${i}`;
      if (i % 50 === 7) return `qz edge ${i} zq`;
      return `Weekly Sweep ${i}`;
    });
    for (const part of chunks(
      scanNames.map((name, i) => ({ name, i })),
      500,
    )) {
      await store.connection.db
        .insertInto('scan')
        .values(
          part.map(({ name, i }) => {
            const at = start + Math.floor(i / 12) * 24 * hour + (i % 12) * hour;
            return {
              id: newId(),
              team_id: spread,
              name,
              name_folded: name.toLowerCase(),
              status: i % 4 === 0 ? 'failed' : 'finished',
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
      .select(['name', 'status'])
      .where('team_id', '=', spread)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    for (const term of ['WEEKLY', 'ancient relic', 'comet', 'qz', 'zq', 'e', 'sweep 21', 'no such', 'zz']) {
      for (const statuses of [undefined, ['failed'] as const]) {
        const all = expected
          .filter((r) => r.name.toLowerCase().includes(term.toLowerCase()))
          .filter((r) => statuses === undefined || statuses.includes(r.status as 'failed'))
          .map((r) => r.name);
        for (const offset of [0, 7, Math.max(0, all.length - 5), all.length + 3]) {
          const page = await store.scans.list(spread, { offset, limit: 30, search: term, statuses });
          expect(
            page.map((s) => s.name),
            `${term} ${statuses ?? ''} at ${offset}`,
          ).toEqual(all.slice(offset, offset + 30));
        }
      }
    }
  });

  it('finds a scan by a name given after it was created, and one longer than the grams kept per name', async () => {
    const renamed = (await store.teams.ensure('renamed')).id;
    const scan = await store.scans.create({ teamId: renamed, name: 'first name' });
    await store.connection.db
      .updateTable('scan')
      .set({ name: 'Zephyr Quokka', name_folded: 'zephyr quokka' })
      .where('id', '=', scan.id)
      .execute();
    expect(await names('quokka', renamed)).toEqual(['Zephyr Quokka']);
    expect(await names('yr q', renamed)).toEqual(['Zephyr Quokka']);
    const long = `${'a'.repeat(600)} tail-ÿ`;
    await store.scans.create({ teamId: renamed, name: long });
    expect(await names('tail-ÿ', renamed)).toEqual([long]);
    expect(await names('TAIL', renamed)).toEqual([long]);
  });

  it('finds scans created on the first and the last day of a span of 32 days', async () => {
    const edges = (await store.teams.ensure('edges')).id;
    const span = Date.UTC(2024, 5, 1) - (Date.UTC(2024, 5, 1) % SPAN_MS);
    const days = [-1, 0, 1, 30, 31, 32].map((day) => span + day * BUCKET_MS + 3_600_000);
    await store.connection.db
      .insertInto('scan')
      .values(
        days.map((at, i) => ({
          id: newId(),
          team_id: edges,
          name: `Edge Day ${i}`,
          name_folded: `edge day ${i}`,
          status: 'finished',
          created_at: at,
          updated_at: at,
        })) as never,
      )
      .execute();
    for (const [i] of days.entries()) expect(await names(`day ${i}`, edges)).toEqual([`Edge Day ${i}`]);
    expect(await names('edge d', edges)).toHaveLength(days.length);
    expect(await names('day 6', edges)).toEqual([]);
  });

  it('creates many scans at once whose names share grams, and finds each', async () => {
    const busy = (await store.teams.ensure('busy')).id;
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.scans.create({ teamId: busy, name: `${words[i % 8]} ${words[(i * 3) % 8]} ${i}` }),
      ),
    );
    expect(created).toHaveLength(40);
    expect(await names('hotel', busy)).toHaveLength(
      created.filter((scan) => scan.name.includes('hotel')).length,
    );
  });

  it('sorts a search by another field over the same matches', async () => {
    const sorted = await store.scans.list(team, {
      offset: 0,
      limit: 100,
      search: 'scan',
      sort: [{ field: 'created_at', direction: 'asc' }],
    });
    expect(sorted.map((s) => s.name)).toEqual(['ÜNÏCÖDÉ Scan', '東京タワー scan']);
  });
});
