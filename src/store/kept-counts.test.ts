import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { ChangeCounter } from './changes.js';
import { KeptCounts } from './kept-counts.js';
import type { ScanStatus } from './model.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';
import { insertRetests, plainRetestPage } from './testing/retest-rows.js';
import { insertNeedleScans, plainNameSearch, plainScanPage } from './testing/scan-rows.js';

describe('counts kept while the store is unchanged', () => {
  function counted(generation: { value: number | undefined }) {
    const kept = new KeptCounts(() => generation.value);
    let loads = 0;
    const read = (key: string) => kept.read(key, ['retest'], async () => `${key} #${++loads}`);
    return { kept, read, loads: () => loads };
  }

  it('loads a key once while the generation holds, and again once it moves', async () => {
    const generation = { value: 1 as number | undefined };
    const { read, loads } = counted(generation);
    expect(await read('a')).toBe('a #1');
    expect(await read('a')).toBe('a #1');
    generation.value = 2;
    expect(await read('a')).toBe('a #2');
    expect(loads()).toBe(2);
  });

  it('keeps nothing while changes are not heard: the caller reads for itself', async () => {
    const generation = { value: undefined as number | undefined };
    const { read, loads } = counted(generation);
    expect(read('a')).toBeUndefined();
    expect(loads()).toBe(0);
  });

  it('keeps each key apart, so one team never gets another team’s counts', async () => {
    const { read } = counted({ value: 7 });
    expect(await read('team-1 retest_bucket')).toBe('team-1 retest_bucket #1');
    expect(await read('team-2 retest_bucket')).toBe('team-2 retest_bucket #2');
    expect(await read('team-1 retest_bucket')).toBe('team-1 retest_bucket #1');
  });

  it('shares one load between the calls made while it runs', async () => {
    const kept = new KeptCounts(() => 1);
    let loads = 0;
    let finish: (value: number) => void = () => undefined;
    const load = () => {
      loads++;
      return new Promise<number>((resolve) => {
        finish = resolve;
      });
    };
    const first = kept.read('a', ['retest'], load);
    const second = kept.read('a', ['retest'], load);
    finish(42);
    expect([await first, await second, loads]).toEqual([42, 42, 1]);
  });

  it('does not keep a load that failed', async () => {
    const kept = new KeptCounts(() => 1);
    await expect(
      kept.read('a', ['retest'], () => Promise.reject(new Error('connection lost'))),
    ).rejects.toThrow('connection lost');
    expect(await kept.read('a', ['retest'], async () => 'read again')).toBe('read again');
  });

  it('keeps a key across changes to tables it does not read, and loads it again at a change to one it does', async () => {
    const counter = new ChangeCounter();
    const kept = new KeptCounts((tables) => counter.generationOf(tables));
    let loads = 0;
    const read = () => kept.read('team-1 retest', ['retest', 'retest_bucket'], async () => ++loads);
    expect(await read()).toBe(1);
    counter.bump('scan');
    counter.bump('finding');
    expect(await read()).toBe(1);
    counter.bump('retest_bucket');
    expect(await read()).toBe(2);
    // A change that names no table (this process's own commit, older triggers) may be to any.
    counter.bump();
    expect(await read()).toBe(3);
    expect(counter.generation).toBe(4);
  });

  it('forgets the key read longest ago past 1,024 keys', async () => {
    const { read, loads } = counted({ value: 1 });
    for (let i = 0; i < 1_024; i++) await read(`team-${i}`);
    await read('team-0');
    await read('team-1024');
    expect(loads()).toBe(1_025);
    // team-0 was read again after team-1 was loaded: team-1 went.
    await read('team-0');
    expect(loads()).toBe(1_025);
    await read('team-1');
    expect(loads()).toBe(1_026);
  });
});

const DAY = 86_400_000;

function event(n: number): ResultEvent {
  return {
    'template-id': `tpl-${n % 4}`,
    info: { author: [], tags: [], severity: n % 2 === 0 ? 'high' : 'low' },
    type: 'http',
    host: 'app.test',
    'matched-at': `https://app.test/${n}`,
    timestamp: '2024-03-14T10:21:36.884Z',
    'matcher-status': true,
  };
}

describe('listings on PostgreSQL placed and counted by counts kept while no change is heard', () => {
  let database: TestDatabase;
  let store: Store;
  let other: Store;
  let raw: pg.Client;
  let team: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    // Another process's connections: its writes reach `store` only as announced changes.
    other = await openStore(database.location, { migrate: false });
    raw = new pg.Client({
      connectionString: database.location.engine === 'postgres' ? database.location.url : '',
    });
    await raw.connect();
    team = (await store.teams.ensure('kept')).id;
    const scan = await store.scans.create({ teamId: team, name: 'kept', status: 'uploaded' });
    const { finding } = await store.findings.add(scan.id, event(0));
    const start = Date.UTC(2024, 0, 1);
    // 3,000 results over 30 days, 100 a day.
    await insertRetests(
      store.connection.db,
      { team, scanId: scan.id, findingId: finding.id, target: 'app.test' },
      Array.from({ length: 3_000 }, (_, i) => start + Math.floor(i / 100) * DAY + (i % 100) * 1_000),
    );
  });
  afterAll(async () => {
    await raw?.end();
    await other?.close();
    await store?.close();
    await database?.drop();
  });

  const plainOffset = (offset: number) => plainRetestPage(store.connection.db, team, offset, 20);

  async function page(offset: number): Promise<string[]> {
    return (await store.retests.list(team, { offset, limit: 20 })).map((r) => r.id);
  }

  async function heard(): Promise<void> {
    const connection = store.connection;
    if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
    for (let waited = 0; connection.watch.heardGeneration() === undefined; waited += 10) {
      if (waited > 5_000) throw new Error('the store never heard the change channel');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Runs `write` with the change triggers off: what it changes is not announced. */
  async function unannounced(write: () => Promise<void>): Promise<void> {
    const { rows } = await raw.query<{ table: string; trigger: string }>(
      "select tgrelid::regclass::text as table, tgname as trigger from pg_trigger where tgname like '%\\_notify\\_change'",
    );
    const each = (verb: string) =>
      Promise.all(rows.map((row) => raw.query(`alter table ${row.table} ${verb} trigger ${row.trigger}`)));
    await each('disable');
    try {
      await write();
    } finally {
      await each('enable');
    }
  }

  /** The team's `n` newest retest results go, with their day's count, unannounced. */
  async function dropNewestUnannounced(n: number): Promise<void> {
    await unannounced(async () => {
      await raw.query(
        `delete from retest where id in (select id from retest where team_id = $1 order by created_at desc limit ${n})`,
        [team],
      );
      await raw.query(
        `update retest_bucket set n = n - ${n} where team_id = $1 and bucket = (select max(bucket) from retest_bucket where team_id = $1)`,
        [team],
      );
    });
  }

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let waited = 0; !(await check()); waited += 20) {
      if (waited > 5_000) throw new Error(`${what} within 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('places a page by the counts of its own statement until changes are heard, then by kept counts', async () => {
    // The first listing starts listening, and is placed by its own statement meanwhile.
    expect(await page(2_500)).toEqual(await plainOffset(2_500));
    await heard();
    for (const offset of [2_000, 2_099, 2_100, 2_999, 3_000])
      expect(await page(offset), `offset ${offset}`).toEqual(await plainOffset(offset));
  });

  it('keeps the counts while nothing is announced, and reads them again once a change is', async () => {
    await heard();
    const before = await page(2_500);
    // Ten results of the newest day go, unannounced: the kept counts no longer match the rows,
    // which only keeping them explains.
    await dropNewestUnannounced(10);
    const stale = await page(2_500);
    expect(stale).not.toEqual(await plainOffset(2_500));
    expect(stale).toEqual(before);
    await raw.query('notify keyhole_change');
    await until(
      async () => JSON.stringify(await page(2_500)) === JSON.stringify(await plainOffset(2_500)),
      'the page follows the announced change',
    );
  });

  it('keeps what it read of retest results while other tables change, and reads again once they change', async () => {
    await heard();
    const connection = store.connection;
    if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
    const notified: string[] = [];
    const listening = new pg.Client({
      connectionString: database.location.engine === 'postgres' ? database.location.url : '',
    });
    await listening.connect();
    try {
      listening.on('notification', (message) => notified.push(message.payload ?? ''));
      await listening.query('listen keyhole_change');
      const before = await page(2_600);
      await dropNewestUnannounced(10);
      expect(await page(2_600)).toEqual(before);
      // Another process records a scan: its notifications name the scan's tables only.
      const generation = connection.watch.heardGeneration() ?? 0;
      await other.scans.create({ teamId: team, name: 'meanwhile', status: 'uploaded' });
      // Heard by the store's listener and by this test's, each on its own connection, in either order.
      await until(
        async () => (connection.watch.heardGeneration() ?? 0) > generation && notified.includes('scan'),
        'the scan’s change is heard',
      );
      expect(notified).not.toContain('retest');
      expect(await page(2_600)).toEqual(before);
      expect(await page(2_600)).not.toEqual(await plainOffset(2_600));
      // A change that names retest results: read again.
      await raw.query("select pg_notify('keyhole_change', 'retest')");
      await until(
        async () => JSON.stringify(await page(2_600)) === JSON.stringify(await plainOffset(2_600)),
        'the page follows the change to retest results',
      );
    } finally {
      await listening.end();
    }
  });

  it('follows findings another process records once their change is heard, and this process’s own at once', async () => {
    await heard();
    const totals = async () =>
      Promise.all(
        [{ severities: ['high' as const] }, { search: 'TPL-0' }].map(
          async (filter) => (await store.findingPages.list(team, filter, { offset: 0, limit: 1 })).total,
        ),
      );
    const [high = 0, searched = 0] = await totals();
    const scan = await other.scans.create({ teamId: team, name: 'other process', status: 'uploaded' });
    // Three of high severity (even numbers), two of template tpl-0 (multiples of 4).
    await other.findings.addMany(
      scan.id,
      Array.from({ length: 6 }, (_, i) => event(100 + i)),
    );
    await until(
      async () => JSON.stringify(await totals()) === JSON.stringify([high + 3, searched + 2]),
      'the totals count the other process’s findings',
    );
    const mine = await store.scans.create({ teamId: team, name: 'this process', status: 'uploaded' });
    await store.findings.addMany(mine.id, [event(200), event(202)]);
    expect(await totals()).toEqual([high + 5, searched + 3]);
  });

  it('keeps a search’s tally while nothing is announced, and reads it again once a change is', async () => {
    await heard();
    const searched = async () =>
      (await store.findingPages.list(team, { search: 'tpl-3' }, { offset: 0, limit: 1 })).total;
    const before = await searched();
    await unannounced(async () => {
      const scan = await other.scans.create({ teamId: team, name: 'unannounced', status: 'uploaded' });
      await other.findings.addMany(scan.id, [event(303)]);
    });
    expect(await searched()).toBe(before);
    await raw.query('notify keyhole_change');
    await until(async () => (await searched()) === before + 1, 'the search counts the new finding');
  });

  describe('a search of scan names, its matches kept from its second ask', () => {
    let named = '';
    const start = Date.UTC(2024, 5, 1);

    beforeAll(async () => {
      named = (await store.teams.ensure('named')).id;
      // 5,300 scans over 53 days: every name holds "sweep", a 100th of them "needle" (a few
      // failed), one in 5,300 "lonely".
      await insertNeedleScans(store.connection.db, named, 5_300, start);
    });

    const plainSearch = (term: string, offset: number, statuses?: ['failed']) =>
      plainNameSearch(store.connection.db, named, term, offset, statuses);

    async function search(term: string, offset: number, statuses?: ['failed']): Promise<string[]> {
      return (await store.scans.list(named, { offset, limit: 10, search: term, statuses })).map((s) => s.id);
    }

    it('pages a search as a plain comparison at every ask, kept or not, of any share of the names', async () => {
      await heard();
      for (const [term, statuses] of [
        ['needle', undefined],
        ['NEEDLE', ['failed']],
        ['lonely', undefined],
        ['sweep', undefined],
        ['no such name', undefined],
      ] as const) {
        for (const offset of [0, 10, 40, 45, 5_290]) {
          const want = await plainSearch(term, offset, statuses && [...statuses]);
          for (const ask of [1, 2, 3])
            expect(
              await search(term, offset, statuses && [...statuses]),
              `${term} at ${offset}, ask ${ask}`,
            ).toEqual(want);
        }
      }
    });

    it('keeps a deep page’s counts of scans while scans’ progress and other tables change, and reads them again once a status is set', async () => {
      await heard();
      const connection = store.connection;
      if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
      // By status: the counts of `scan_status_bucket`, which triggers keep (the rows were written
      // directly, without the store's own counts of `scan_bucket`).
      const filters: ScanStatus[][] = [['finished', 'failed'], ['finished']];
      const pages = async () =>
        Promise.all(
          filters.map(async (statuses) =>
            (await store.scans.list(named, { offset: 3_000, limit: 10, statuses })).map((scan) => scan.id),
          ),
        );
      const plainPages = async () =>
        Promise.all(
          filters.map((statuses) =>
            plainScanPage(store.connection.db, named, { statuses, offset: 3_000, limit: 10 }),
          ),
        );
      expect(await pages()).toEqual(await plainPages());
      const before = await pages();
      // A newer scan, unannounced (its counts' triggers still count it): only kept counts miss it.
      await unannounced(async () => {
        await raw.query(
          `insert into scan (id, team_id, name, name_folded, status, created_at, updated_at)
           values ('scan-deep-newest', $1, 'deep newest', 'deep newest', 'finished', $2, $2)`,
          [named, start + 61 * DAY],
        );
      });
      expect(await pages()).toEqual(before);
      expect(await plainPages()).not.toEqual(before);
      // Another process records a scan's progress and findings: no column the counts read.
      const generation = connection.watch.heardGeneration() ?? 0;
      await raw.query(
        `update scan set updated_at = updated_at + 1, severity_high = severity_high + 1 where id = 'scan-00042'`,
      );
      await raw.query("select pg_notify('keyhole_change', 'finding')");
      await until(
        async () => (connection.watch.heardGeneration() ?? 0) >= generation + 2,
        'the changes are heard',
      );
      expect(await pages()).toEqual(before);
      // A status set, even to the same: read again.
      await raw.query(`update scan set status = status, updated_at = updated_at + 1 where id = 'scan-00042'`);
      await until(
        async () => JSON.stringify(await pages()) === JSON.stringify(await plainPages()),
        'the pages follow the change to scans',
      );
    });

    it('keeps a search’s matches while nothing is announced, and finds them again once a change is', async () => {
      await heard();
      const before = await search('needle', 0);
      expect(await search('needle', 0)).toEqual(before);
      // A newer match, unannounced: only kept matches leave it out.
      await unannounced(async () => {
        await raw.query(
          `insert into scan (id, team_id, name, name_folded, status, created_at, updated_at)
           values ('scan-newest', $1, 'needle newest', 'needle newest', 'finished', $2, $2)`,
          [named, start + 60 * DAY],
        );
      });
      expect(await search('needle', 0)).toEqual(before);
      expect(await plainSearch('needle', 0)).toEqual(['scan-newest', ...before.slice(0, 9)]);
      // A change to another table leaves them kept; one to the scans does not.
      const connection = store.connection;
      if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
      const generation = connection.watch.heardGeneration() ?? 0;
      await raw.query("select pg_notify('keyhole_change', 'retest')");
      await until(async () => (connection.watch.heardGeneration() ?? 0) > generation, 'the change is heard');
      expect(await search('needle', 0)).toEqual(before);
      await raw.query("select pg_notify('keyhole_change', 'scan')");
      await until(
        async () =>
          JSON.stringify(await search('needle', 0)) === JSON.stringify(await plainSearch('needle', 0)),
        'the search finds the announced scan',
      );
    });
  });
});
