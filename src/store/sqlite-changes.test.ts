import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent, Severity } from '../event/index.js';
import { openStore, type Store } from './store.js';
import { sqliteTestDatabase, type TestDatabase } from './testing/databases.js';
import { insertNeedleScans, plainNameSearch } from './testing/scan-rows.js';

const SEVERITIES: Severity[] = ['high', 'low'];

function event(n: number): ResultEvent {
  return {
    'template-id': `tpl-${n % 3}`,
    info: { name: `finding ${n}`, author: [], tags: [], severity: SEVERITIES[n % 2] ?? 'info' },
    type: 'http',
    host: `host${n}.test`,
    'matched-at': `https://host${n}.test/`,
    timestamp: '2024-03-14T10:21:36.884Z',
    'matcher-status': true,
  };
}

describe('what a SQLite store keeps while its file is unchanged', () => {
  let database: TestDatabase;
  /** The server's store, and another process's on the same file. */
  let store: Store;
  let other: Store;
  let team = '';

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
    other = await openStore(database.location);
    team = (await store.teams.ensure('red')).id;
    const scan = await store.scans.create({ teamId: team, name: 'first', status: 'uploaded' });
    await store.findings.addMany(
      scan.id,
      Array.from({ length: 10 }, (_, i) => event(i)),
    );
  });

  afterAll(async () => {
    await other?.close();
    await store?.close();
    await database?.drop();
  });

  const totals = async (s: Store = store) =>
    Promise.all(
      [{}, { severities: ['high' as const] }, { search: 'TPL-0' }].map(
        async (filter) => (await s.findingPages.list(team, filter, { offset: 0, limit: 1 })).total,
      ),
    );

  it('moves its change token with another connection’s commit and with its own writes, and only then', async () => {
    const first = await store.changeToken();
    expect(await store.changeToken()).toBe(first);
    await other.teams.ensure('blue');
    const afterOther = await store.changeToken();
    expect(afterOther).not.toBe(first);
    await store.teams.ensure('green');
    expect(await store.changeToken()).not.toBe(afterOther);
  });

  it('counts the findings another process records, and its own, in the next page’s total, searched or not', async () => {
    expect(await totals()).toEqual([10, 5, 4]);
    expect(await totals()).toEqual([10, 5, 4]);
    const scan = await other.scans.create({ teamId: team, name: 'other process', status: 'uploaded' });
    await other.findings.addMany(scan.id, [event(100), event(102), event(103)]);
    expect(await totals()).toEqual([13, 7, 5]);
    const mine = await store.scans.create({ teamId: team, name: 'this process', status: 'uploaded' });
    await store.findings.addMany(mine.id, [event(200)]);
    expect(await totals()).toEqual([14, 8, 5]);
  });

  it('gives a token equal to no other while its own transaction is open, and keeps no counts read then', async () => {
    const before = await totals();
    let during: string[] = [];
    let totalsDuring: number[] = [];
    await store.connection.db.transaction().execute(async (trx) => {
      const scan = await trx
        .selectFrom('scan')
        .select('id')
        .where('team_id', '=', team)
        .limit(1)
        .executeTakeFirstOrThrow();
      // Deleting a finding moves this connection's count of changes before the commit; the
      // read threads see the finding until then.
      await sql`delete from finding where id = (select id from finding where scan_id = ${scan.id} and severity = 'high' limit 1)`.execute(
        trx,
      );
      during = [await store.changeToken(), await store.changeToken()];
      totalsDuring = await totals();
    });
    expect(during[0]).not.toBe(during[1]);
    const after = await store.changeToken();
    expect(during).not.toContain(after);
    // Read during the transaction, the counts were the committed ones; after it, the page counts
    // the deletion (the trigger-kept counts and the kept copy of them both moved on).
    expect(totalsDuring).toEqual(before);
    expect((await totals()).slice(0, 2)).toEqual([(before[0] ?? 0) - 1, (before[1] ?? 0) - 1]);
  });

  describe('a search of scan names, its matches kept from its second ask', () => {
    let named = '';
    const start = Date.UTC(2024, 5, 1);
    const DAY = 86_400_000;

    beforeAll(async () => {
      named = (await store.teams.ensure('named')).id;
      // 2,000 scans over 20 days: every name holds "sweep", a 100th of them "needle" (a few failed).
      await insertNeedleScans(store.connection.db, named, 2_000, start);
    });

    const plainSearch = (term: string, offset: number, statuses?: ['failed']) =>
      plainNameSearch(store.connection.db, named, term, offset, statuses);

    async function search(term: string, offset: number, statuses?: ['failed']): Promise<string[]> {
      return (await store.scans.list(named, { offset, limit: 10, search: term, statuses })).map((s) => s.id);
    }

    it('pages a search as a plain comparison at every ask, kept or not', async () => {
      for (const [term, statuses] of [
        ['needle', undefined],
        ['NEEDLE', ['failed']],
        ['sweep', undefined],
        ['no such name', undefined],
      ] as const) {
        for (const offset of [0, 10, 15, 1_995]) {
          const want = await plainSearch(term, offset, statuses && [...statuses]);
          for (const ask of [1, 2, 3])
            expect(
              await search(term, offset, statuses && [...statuses]),
              `${term} at ${offset}, ask ${ask}`,
            ).toEqual(want);
        }
      }
    });

    it('finds a match another process records after its matches were kept, and one this process renames', async () => {
      const before = await search('needle', 0);
      expect(await search('needle', 0)).toEqual(before);
      await other.connection.db
        .insertInto('scan')
        .values({
          id: 'scan-newest',
          team_id: named,
          name: 'needle newest',
          name_folded: 'needle newest',
          status: 'finished',
          created_at: start + 30 * DAY,
          updated_at: start + 30 * DAY,
        } as never)
        .execute();
      expect(await search('needle', 0)).toEqual(['scan-newest', ...before.slice(0, 9)]);
      expect(await search('needle', 0)).toEqual(await plainSearch('needle', 0));
      await store.connection.db
        .updateTable('scan')
        .set({ name: 'renamed', name_folded: 'renamed' })
        .where('id', '=', 'scan-newest')
        .execute();
      expect(await search('needle', 0)).toEqual(before);
    });
  });
});
