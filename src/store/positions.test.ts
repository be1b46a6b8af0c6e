import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Severity } from '../event/index.js';
import { BUCKET_MS } from './buckets.js';
import { KeptCounts } from './kept-counts.js';
import type { ScanStatus, VulnStatus } from './model.js';
import { POSITION_STRIDE, resumeAt } from './positions.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from './testing/databases.js';
import { insertSpacedFindings } from './testing/finding-rows.js';
import { insertRetests, plainRetestPage } from './testing/retest-rows.js';
import { insertScans, plainScanPage } from './testing/scan-rows.js';

describe('where a page resumes from a day’s positions', () => {
  const positions = ['p1', 'p2', 'p3'];

  it('starts past the nearest position before the page, skipping the rest', () => {
    expect(resumeAt(positions, POSITION_STRIDE)).toEqual({ after: 'p1', skip: 0 });
    expect(resumeAt(positions, 2 * POSITION_STRIDE + 5)).toEqual({ after: 'p2', skip: 5 });
    expect(resumeAt(positions, 4 * POSITION_STRIDE - 1)).toEqual({ after: 'p3', skip: POSITION_STRIDE - 1 });
  });

  it('gives no place to a page within the first stride, or past the positions there are', () => {
    expect(resumeAt(positions, POSITION_STRIDE - 1)).toBeUndefined();
    expect(resumeAt(positions, 4 * POSITION_STRIDE)).toBeUndefined();
    expect(resumeAt([], POSITION_STRIDE)).toBeUndefined();
  });
});

describe('what is loaded only when asked again', () => {
  it('answers nothing at the first ask of a generation and loads at the second, then keeps it', async () => {
    const generation = { value: 1 };
    const kept = new KeptCounts(() => generation.value);
    let loads = 0;
    const ask = () => kept.readWhenAskedAgain('day', ['retest'], async () => ++loads);
    expect(ask()).toBeUndefined();
    expect(await ask()).toBe(1);
    expect(await ask()).toBe(1);
    generation.value = 2;
    expect(ask()).toBeUndefined();
    expect(await ask()).toBe(2);
    expect(loads).toBe(2);
  });

  it('asks nothing while changes are not heard', () => {
    const kept = new KeptCounts(() => undefined);
    let loads = 0;
    for (let i = 0; i < 3; i++)
      expect(kept.readWhenAskedAgain('day', ['retest'], async () => ++loads)).toBeUndefined();
    expect(loads).toBe(0);
  });
});

const DAY = BUCKET_MS;
const PER_DAY = 2_100;
const DAYS = 5;
const STATUSES: readonly ScanStatus[] = ['finished', 'failed', 'running'];

describe('deep pages on PostgreSQL resumed from kept positions', () => {
  let database: TestDatabase;
  let store: Store;
  let team = '';
  let scanId = '';

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    team = (await store.teams.ensure('positions')).id;
    const other = (await store.teams.ensure('other')).id;
    const db = store.connection.db;
    const start = Date.UTC(2024, 0, 1);
    // Rows three to a millisecond, so a position's row shares its time with its neighbours and
    // only the id tells them apart.
    const at = (i: number) => start + Math.floor(i / PER_DAY) * DAY + Math.floor((i % PER_DAY) / 3);
    const rows = Array.from({ length: PER_DAY * DAYS }, (_, i) => i);
    const scans = rows.map((i) => ({
      name: `scan ${i}`,
      status: STATUSES[i % STATUSES.length]!,
      createdAt: at(i),
    }));
    for (const teamId of [team, other]) await insertScans(db, teamId, scans);
    const scan = await store.scans.create({ teamId: team, name: 'retested', status: 'uploaded' });
    scanId = scan.id;
    const { finding } = await store.findings.add(scan.id, {
      'template-id': 't',
      info: { author: null, tags: null, severity: 'low' },
      type: 'http',
      'matched-at': 'https://a.test/',
      timestamp: '2024-03-14T10:00:00Z',
      'matcher-status': true,
    });
    await insertRetests(db, { team, scanId, findingId: finding.id }, rows.map(at));
    // Findings 90 s apart: their ids fall in a few id buckets of thousands each.
    await insertSpacedFindings(db, { team, scanId }, rows.length, start);
    const connection = store.connection;
    if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
    await store.scans.list(team, { offset: 0, limit: 1 });
    for (let waited = 0; connection.watch.heardGeneration() === undefined; waited += 10) {
      if (waited > 5_000) throw new Error('the store never heard the change channel');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /**
   * Offsets past the counted depth whose pages skip less than, exactly, and more than a stride of
   * their day (each listing below has at least 3,500 rows).
   */
  const OFFSETS = [2_000, 2_110, 2_100 + POSITION_STRIDE, 2_100 + 3 * POSITION_STRIDE + 7, 3_400];

  /** The team's retest results at `offset`, as a plain `OFFSET` reads them. */
  const plainRetests = (offset: number, limit: number) =>
    plainRetestPage(store.connection.db, team, offset, limit);

  /** The team's scans of `statuses` (any, when none) at `offset`, as a plain `OFFSET` reads them. */

  /** The team's findings of `severities` and `statuses` at `offset`, as a plain `OFFSET` reads them. */
  async function plainFindings(
    filter: { severities: readonly Severity[]; statuses: readonly VulnStatus[] },
    offset: number,
    limit: number,
  ): Promise<string[]> {
    let query = store.connection.db.selectFrom('finding').select('id').where('team_id', '=', team);
    if (filter.severities.length > 0) query = query.where('severity', 'in', filter.severities);
    if (filter.statuses.length > 0) query = query.where('vuln_status', 'in', filter.statuses);
    return (await query.orderBy('id', 'desc').limit(limit).offset(offset).execute()).map((r) => r.id);
  }

  /** A listing asked three times at each offset: before its day's positions are kept, as they load, and kept. */
  async function expectPagesAsPlain(
    listing: (offset: number) => Promise<string[]>,
    plain: (offset: number) => Promise<string[]>,
  ): Promise<void> {
    for (const offset of OFFSETS) {
      const want = await plain(offset);
      expect(want.length, `offset ${offset}`).toBeGreaterThan(0);
      for (const ask of [1, 2, 3])
        expect(await listing(offset), `offset ${offset}, ask ${ask}`).toEqual(want);
    }
  }

  it('lists retest results as a plain OFFSET does', async () => {
    await expectPagesAsPlain(
      async (offset) => (await store.retests.list(team, { offset, limit: 25 })).map((r) => r.id),
      (offset) => plainRetests(offset, 25),
    );
  });

  it.each([[[]], [['failed']], [['finished', 'running']]] as const)(
    'lists the team’s scans of statuses %j as a plain OFFSET does, never another team’s',
    async (statuses) => {
      await expectPagesAsPlain(
        async (offset) =>
          (await store.scans.list(team, { offset, limit: 25, statuses: [...statuses] })).map((s) => s.id),
        (offset) => plainScanPage(store.connection.db, team, { statuses, offset, limit: 25 }),
      );
    },
  );

  it.each([
    ['no filter', {}],
    ['a severity', { severities: ['high'] as const }],
    ['a status', { statuses: ['fixed'] as const }],
  ])('lists the team’s findings with %s as a plain OFFSET does', async (_, filter) => {
    const severities = 'severities' in filter ? [...filter.severities] : [];
    const statuses = 'statuses' in filter ? [...filter.statuses] : [];
    await expectPagesAsPlain(
      async (offset) =>
        (await store.findingPages.list(team, { severities, statuses }, { offset, limit: 25 })).findings.map(
          (f) => f.id,
        ),
      (offset) => plainFindings({ severities, statuses }, offset, 25),
    );
  });

  it('pages as a plain OFFSET at 200 random offsets and limits of every listing, each asked twice', async () => {
    // A fixed sequence (a linear congruential generator), so a failure names offsets that repeat.
    let state = 17;
    const next = (below: number) => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state % below;
    };
    // Each with its number of rows: offsets run over all of them and a little past.
    const listings: [string, number, (offset: number, limit: number) => Promise<string[][]>][] = [
      [
        'retest results',
        PER_DAY * DAYS,
        async (offset, limit) => [
          (await store.retests.list(team, { offset, limit })).map((r) => r.id),
          await plainRetests(offset, limit),
        ],
      ],
      [
        'failed and running scans',
        (PER_DAY * DAYS * 2) / 3,
        async (offset, limit) => [
          (await store.scans.list(team, { offset, limit, statuses: ['failed', 'running'] })).map((s) => s.id),
          await plainScanPage(store.connection.db, team, { statuses: ['failed', 'running'], offset, limit }),
        ],
      ],
      [
        'findings of high severity',
        (PER_DAY * DAYS) / 2,
        async (offset, limit) => [
          (await store.findingPages.list(team, { severities: ['high'] }, { offset, limit })).findings.map(
            (f) => f.id,
          ),
          await plainFindings({ severities: ['high'], statuses: [] }, offset, limit),
        ],
      ],
    ];
    for (const [name, rows, pages] of listings) {
      for (let i = 0; i < 200; i++) {
        const offset = 2_000 + next(rows - 2_000 + 50);
        const limit = 1 + next(100);
        for (const ask of [1, 2]) {
          const [listed, plain] = await pages(offset, limit);
          expect(listed, `${name} at ${offset}, limit ${limit}, ask ${ask}`).toEqual(plain);
        }
      }
    }
  }, 60_000);

  it('loads a day’s positions again after a change is heard, and pages as a plain OFFSET after it', async () => {
    const plain = (offset: number) => plainRetests(offset, 25);
    const page = async (offset: number) =>
      (await store.retests.list(team, { offset, limit: 25 })).map((r) => r.id);
    const offset = 2_100 + 3 * POSITION_STRIDE + 7;
    for (let ask = 0; ask < 3; ask++) expect(await page(offset)).toEqual(await plain(offset));
    // Rows of the page's day newer than it go, through the store's own connection (heard at once):
    // kept positions would now point a stride or more too deep.
    const newest = await store.connection.db
      .selectFrom('retest')
      .select(['id', 'created_at'])
      .where('team_id', '=', team)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(2_100 + 10)
      .limit(POSITION_STRIDE + 3)
      .execute();
    await store.connection.db
      .deleteFrom('retest')
      .where(
        'id',
        'in',
        newest.map((r) => r.id),
      )
      .execute();
    const day = Math.floor(Number(newest[0]!.created_at) / DAY) * DAY;
    await sql`update retest_bucket set n = n - ${newest.length} where team_id = ${team} and bucket = ${day}`.execute(
      store.connection.db,
    );
    for (let ask = 0; ask < 3; ask++) expect(await page(offset), `ask ${ask}`).toEqual(await plain(offset));
  });
});

describe('deep pages of findings on SQLite resumed from kept positions', () => {
  let database: TestDatabase;
  let store: Store;
  /** Another process's store on the same file. */
  let other: Store;
  let team = '';
  let scanId = '';
  const start = Date.UTC(2024, 0, 1);
  const ROWS = 6_000;

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
    other = await openStore(database.location);
    team = (await store.teams.ensure('positions')).id;
    scanId = (await store.scans.create({ teamId: team, name: 'found', status: 'uploaded' })).id;
    // Findings 90 s apart: their ids fall in a few id buckets of about 1,450 each.
    await insertSpacedFindings(store.connection.db, { team, scanId }, ROWS, start);
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await store?.close();
    await database?.drop();
  });

  async function plainFindings(
    severities: readonly Severity[],
    offset: number,
    limit: number,
  ): Promise<string[]> {
    let query = store.connection.db.selectFrom('finding').select('id').where('team_id', '=', team);
    if (severities.length > 0) query = query.where('severity', 'in', severities);
    return (await query.orderBy('id', 'desc').limit(limit).offset(offset).execute()).map((r) => r.id);
  }

  const listed = async (severities: Severity[], offset: number, limit: number) =>
    (await store.findingPages.list(team, { severities }, { offset, limit })).findings.map((f) => f.id);

  it('pages as a plain OFFSET at 200 random offsets and limits, with and without a filter, each asked three times', async () => {
    let state = 23;
    const next = (below: number) => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state % below;
    };
    for (const [severities, rows] of [
      [[], ROWS],
      [['high'], ROWS / 2],
    ] as const) {
      for (let i = 0; i < 200; i++) {
        const offset = 2_000 + next(rows - 2_000 + 50);
        const limit = 1 + next(100);
        const want = await plainFindings(severities, offset, limit);
        for (const ask of [1, 2, 3])
          expect(
            await listed([...severities], offset, limit),
            `${severities} at ${offset}, ask ${ask}`,
          ).toEqual(want);
      }
    }
  }, 60_000);

  it('places pages anew after another process removes findings newer than the page, and after this one adds some', async () => {
    const offset = 2_100 + 3 * POSITION_STRIDE + 7;
    for (let ask = 0; ask < 3; ask++)
      expect(await listed([], offset, 25)).toEqual(await plainFindings([], offset, 25));
    // Findings of the page's bucket newer than it go, through another connection: kept counts and
    // positions would now point a stride or more too deep.
    const newest = await store.connection.db
      .selectFrom('finding')
      .select('id')
      .where('team_id', '=', team)
      .orderBy('id', 'desc')
      .offset(2_100 + 10)
      .limit(POSITION_STRIDE + 3)
      .execute();
    await other.connection.db
      .deleteFrom('finding')
      .where(
        'id',
        'in',
        newest.map((r) => r.id),
      )
      .execute();
    for (let ask = 0; ask < 3; ask++)
      expect(await listed([], offset, 25), `ask ${ask}`).toEqual(await plainFindings([], offset, 25));
    await store.findings.addMany(scanId, [
      {
        'template-id': 't',
        info: { author: null, tags: null, severity: 'high' },
        type: 'http',
        'matched-at': 'https://b.test/',
        timestamp: '2024-03-14T10:00:00Z',
        'matcher-status': true,
      },
    ]);
    for (let ask = 0; ask < 3; ask++)
      expect(await listed([], offset, 25), `ask ${ask} after`).toEqual(await plainFindings([], offset, 25));
  });
});
