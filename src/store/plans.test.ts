import { type Compilable, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Xid } from 'xid-ts';
import type { Severity } from '../event/index.js';
import { BUCKET_MS } from './buckets.js';
import { KeptCounts } from './kept-counts.js';
import type { ScanStatus, VulnStatus } from './model.js';
import { POSITION_STRIDE } from './positions.js';
import { Retests } from './retests.js';
import { SCAN_SORT_FIELDS, type ScanSortField, Scans } from './scans.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';
import { insertRetests } from './testing/retest-rows.js';
import { insertScans } from './testing/scan-rows.js';
import { chunks } from './tx.js';

const ROWS = 30_000;
const DAYS = 60;
const LIMIT = 100;
const STATUSES: readonly ScanStatus[] = ['finished', 'failed', 'running', 'uploaded'];
const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
const FINDING_STATUSES: readonly VulnStatus[] = ['open', 'fixed', 'false_positive', 'triaged'];
/** An id bucket (the first 3 characters of an xid) spans 2^17 seconds. */
const ID_BUCKET_MS = 2 ** 17 * 1000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/**
 * Rows every scan node of the plan read from the listed rows and their indexes, kept or
 * filtered out, over all its loops. The per-day and per-bucket counts a deep page sums (a row a
 * day, whatever the offset) are not rows of the listing.
 */
function rowsRead(node: PlanNode): number {
  const source = node['Relation Name'] ?? node['Index Name'] ?? '';
  const listed = node['Node Type'] !== 'Subquery Scan' && !/_bucket/.test(source);
  const own =
    node['Node Type'].includes('Scan') && listed
      ? (node['Actual Rows'] +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

describe('listing plans on PostgreSQL', () => {
  let database: TestDatabase;
  let store: Store;
  let team = '';

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    team = (await store.teams.ensure('plans')).id;
    const db = store.connection.db;
    const start = Date.UTC(2024, 0, 1);
    const at = (i: number) => start + Math.floor((i * DAYS * BUCKET_MS) / ROWS);
    await insertScans(
      db,
      team,
      Array.from({ length: ROWS }, (_, i) => ({
        name: `scan ${i}`,
        status: STATUSES[i % 4]!,
        createdAt: at(i),
      })),
    );
    const scan = await store.scans.create({ teamId: team, name: 'retested' });
    await store.scans.markRunning(scan.id);
    const { finding } = await store.findings.add(scan.id, {
      'template-id': 't',
      info: { author: null, tags: null, severity: 'low' },
      type: 'http',
      'matched-at': 'https://a.test/',
      timestamp: '2024-03-14T10:00:00Z',
      'matcher-status': true,
    });
    await insertRetests(
      db,
      { team, scanId: scan.id, findingId: finding.id },
      Array.from({ length: ROWS }, (_, i) => at(i)),
      { served_events: '[]' },
    );
    for (const part of chunks(
      Array.from({ length: ROWS }, (_, i) => i),
      2000,
    )) {
      // Vuln ids made at the instant each finding was recorded, as recording makes them.
      const values = part.map((i) => ({
        id: Xid.newWithTime(at(i) / 1000).toString(),
        team_id: team,
        scan_id: scan.id,
        vuln_hash: `hash ${i}`,
        vuln_status: FINDING_STATUSES[i % FINDING_STATUSES.length]!,
        severity: SEVERITIES[i % SEVERITIES.length]!,
        template_id: 't',
        template_path: '',
        template_url: '',
        template_hash: null,
        target: `host${i % 50}.test`,
        event: '{}',
        created_at: at(i),
        updated_at: at(i),
      }));
      // Counted per id bucket by the triggers of migration 0015.
      await db.insertInto('finding').values(values).execute();
    }
    await sql`analyze`.execute(db);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** A parameter's value as an SQL literal (an array as an array literal). */
  function literal(value: unknown): string {
    const text = Array.isArray(value)
      ? `{${value.map((item) => `"${String(item)}"`).join(',')}}`
      : String(value);
    return `'${text.replaceAll("'", "''")}'`;
  }

  async function read(query: Compilable | undefined): Promise<number> {
    if (query === undefined) return 0;
    const { sql: text, parameters } = query.compile();
    const result = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>`explain (analyze, format json) ${sql.raw(
      text.replace(/\$(\d+)/g, (_, n) => literal(parameters[Number(n) - 1])),
    )}`.execute(store.connection.db);
    return rowsRead(result.rows[0]!['QUERY PLAN'][0].Plan);
  }

  /**
   * Rows read by `query` planned once for any values, as `Connection.readsPlannedOnce` runs it:
   * prepared with its parameters, and its generic plan run with the values.
   */
  async function readPlannedOnce(query: Compilable | undefined): Promise<number> {
    if (query === undefined) return 0;
    const { sql: text, parameters } = query.compile();
    const values = parameters.map(literal);
    return store.connection.db.connection().execute(async (db) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(db);
      await sql.raw(`prepare planned_once as ${text}`).execute(db);
      try {
        const result = await sql<{
          'QUERY PLAN': [{ Plan: PlanNode }];
        }>`explain (analyze, format json) ${sql.raw(
          `execute planned_once${values.length === 0 ? '' : `(${values.join(', ')})`}`,
        )}`.execute(db);
        return rowsRead(result.rows[0]!['QUERY PLAN'][0].Plan);
      } finally {
        await sql`deallocate planned_once`.execute(db);
        await sql`reset plan_cache_mode`.execute(db);
      }
    });
  }

  // A day holds ROWS / DAYS = 500 rows: a page at any offset reads at most its own day and the next.
  const BOUND = LIMIT + 2 * (ROWS / DAYS);

  /**
   * The store's listings of scans and retest results, their deep pages placed by the day counts
   * kept while changes are heard (the listener waited for), or by the page's own statement, as
   * while they are not.
   */
  async function listings(placed: 'by kept counts' | 'by its own statement') {
    const connection = store.connection;
    if (connection.engine !== 'postgres') throw new Error('a PostgreSQL store');
    if (placed === 'by its own statement') {
      const unheard = { ...connection, kept: new KeptCounts(() => undefined) };
      return { scans: new Scans(unheard), retests: new Retests(unheard) };
    }
    for (let waited = 0; connection.watch.heardGeneration() === undefined; waited += 10) {
      if (waited > 5_000) throw new Error('the store never heard the change channel');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { scans: store.scans, retests: store.retests };
  }
  const PLACED = ['by kept counts', 'by its own statement'] as const;

  describe.each(PLACED)('deep pages placed %s', (placed) => {
    it.each([
      ['/v1/scans', [], ROWS],
      ['/v1/scans?status=failed', ['failed'], ROWS / 4],
      ['/v1/scans?status=finished,running', ['finished', 'running'], ROWS / 2],
    ] as const)(
      'reads about a page of rows for %s at any offset, not the rows it skips',
      async (_, statuses, total) => {
        const { scans } = await listings(placed);
        for (const offset of [0, 2_000, Math.floor(total / 2), total - LIMIT]) {
          const ids = await scans.pageIds(team, { offset, limit: LIMIT, statuses });
          // Only a search finds its ids before the page's query.
          if (Array.isArray(ids)) throw new Error('a listing without a search is one query');
          expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(BOUND);
        }
      },
    );

    it('reads about a page of rows for /v1/retest at any offset, not the rows it skips', async () => {
      const { retests } = await listings(placed);
      for (const offset of [0, 2_000, ROWS / 2, ROWS - LIMIT]) {
        const ids = await retests.pageIds(team, { offset, limit: LIMIT });
        expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(BOUND);
      }
    });

    it('reads about a page of rows for a page of /v1/scans planned once, at any offset', async () => {
      const { scans } = await listings(placed);
      for (const offset of [0, 2_000, ROWS / 2, ROWS - LIMIT]) {
        const rows = await scans.pageRows(team, { offset, limit: LIMIT });
        // The page's ids, then its rows by id.
        expect(await readPlannedOnce(rows), `offset ${offset}`).toBeLessThanOrEqual(BOUND + LIMIT);
      }
    });

    it('reads about a page of rows for a page of /v1/retest planned once, at any offset', async () => {
      const { retests } = await listings(placed);
      for (const offset of [0, 2_000, ROWS / 2, ROWS - LIMIT]) {
        const rows = await retests.pageRows(team, { offset, limit: LIMIT });
        expect(await readPlannedOnce(rows), `offset ${offset}`).toBeLessThanOrEqual(BOUND + LIMIT);
      }
    });
  });

  it.each([
    ['?status=failed', { statuses: ['failed'] }],
    ['?status=queued (no scan has it)', { statuses: ['queued'] }],
    ...Object.keys(SCAN_SORT_FIELDS).flatMap((field) =>
      (['asc', 'desc'] as const).map(
        (direction) =>
          [`?sort_${direction}=${field}`, { sort: [{ field: field as ScanSortField, direction }] }] as const,
      ),
    ),
  ] as const)(
    'plans a page of /v1/scans%s once for any values, reading no more rows than planned for its values',
    async (_, query) => {
      for (const offset of [0, 2_000, ROWS / 2]) {
        const rows = await store.scans.pageRows(team, { offset, limit: LIMIT, ...query });
        expect(await readPlannedOnce(rows), `offset ${offset}`).toBeLessThanOrEqual(await read(rows));
      }
    },
  );

  describe('deep pages resumed from their day’s kept positions', () => {
    /** A page asked twice, so its day's positions are loaded at the second ask (see positions.ts). */
    async function askedTwice<T>(page: () => Promise<T>): Promise<T> {
      await listings('by kept counts');
      await page();
      return page();
    }
    // Pages that skip most of their day (500 rows a day, 250 of these statuses).
    const OFFSETS = [2_450, ROWS / 2 + 499, 2_240];

    it.each([
      ['/v1/scans', [], 1],
      ['/v1/scans?status=finished,running', ['finished', 'running'], 1 / 2],
    ] as const)('reads a page and less than a stride of its day for %s', async (_, statuses, share) => {
      for (const offset of OFFSETS) {
        const ids = await askedTwice(() => store.scans.pageIds(team, { offset, limit: LIMIT, statuses }));
        if (Array.isArray(ids)) throw new Error('a listing without a search is one query');
        expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual((LIMIT + POSITION_STRIDE) / share);
      }
    });

    it('reads a page and less than a stride of its day for /v1/retest', async () => {
      for (const offset of OFFSETS) {
        const ids = await askedTwice(() => store.retests.pageIds(team, { offset, limit: LIMIT }));
        expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(LIMIT + POSITION_STRIDE);
      }
    });

    it.each([
      ['/v1/scans/results', {}, 1],
      ['/v1/scans/results?vuln_status=fixed,triaged', { statuses: ['fixed', 'triaged'] }, 1 / 2],
    ] as const)('reads a page and less than a stride of its id bucket for %s', async (_, filter, share) => {
      for (let offset = 2_000; offset < 3_000; offset += 150) {
        const window = { offset, limit: LIMIT };
        const ids = await askedTwice(() => store.findingPages.pageIds(team, filter, window));
        expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(
          (LIMIT + POSITION_STRIDE + 1) / share,
        );
      }
    });
  });

  it.each(['scan 1', 'scan 29999', 'scan 2999', 'scan', 'no such scan'])(
    'reads no more for a search of %s planned once than planned for its values',
    async (search) => {
      for (const offset of [0, 200]) {
        const rows = await store.scans.pageRows(team, { offset, limit: LIMIT, search });
        const [once, each] = [await readPlannedOnce(rows), await read(rows)];
        expect(once, `offset ${offset}`).toBeLessThanOrEqual(each);
      }
    },
  );

  // The findings of an id bucket, and the share of them a filter keeps.
  const PER_ID_BUCKET = Math.ceil((ROWS * ID_BUCKET_MS) / (DAYS * BUCKET_MS));

  it.each([
    // The retested finding above is one more, open and low.
    ['/v1/scans/results', {}, ROWS + 1, 1],
    ['/v1/scans/results?severity=critical', { severities: ['critical'] }, ROWS / 6, 1 / 6],
    ['/v1/scans/results?vuln_status=fixed,triaged', { statuses: ['fixed', 'triaged'] }, ROWS / 2, 1 / 2],
  ] as const)(
    'reads about a page of rows for %s at any offset, not the rows it skips',
    async (_, filter, total, share) => {
      const bound = 2 * PER_ID_BUCKET + LIMIT / share;
      expect(await store.findingPages.count(team, filter)).toBe(total);
      for (const offset of [0, 2_000, Math.floor(total / 2), total - LIMIT]) {
        const ids = await store.findingPages.pageIds(team, filter, { offset, limit: LIMIT });
        expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(bound);
        const rows = await store.findingPages.pageRows(team, filter, { offset, limit: LIMIT });
        expect(await readPlannedOnce(rows), `planned once, offset ${offset}`).toBeLessThanOrEqual(
          bound + LIMIT,
        );
      }
    },
  );

  it('reads nothing for a filter that no finding matches', async () => {
    const filter = { statuses: ['accepted_risk'] as VulnStatus[] };
    expect(await store.findingPages.count(team, filter)).toBe(0);
    const ids = await store.findingPages.pageIds(team, filter, { offset: 0, limit: LIMIT });
    expect(await read(ids)).toBe(0);
  });

  it('reads a rare search’s matches by target, not the team’s findings newest first', async () => {
    // One target of 50: a 50th of the findings, read at any offset and nothing else (twice when
    // a bitmap's index and heap nodes each count them).
    const filter = { search: 'HOST7.test' };
    expect(await store.findingPages.count(team, filter)).toBe(ROWS / 50);
    for (const offset of [0, 200, ROWS / 50 - LIMIT]) {
      const ids = await store.findingPages.pageIds(team, filter, { offset, limit: LIMIT });
      expect(await read(ids), `offset ${offset}`).toBeLessThanOrEqual(2 * (ROWS / 50));
    }
  });

  it('counts what a plain OFFSET would read, so the bound above means something', async () => {
    const plain = store.connection.db
      .selectFrom('retest')
      .select('id')
      .where('team_id', '=', team)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(LIMIT)
      .offset(ROWS / 2);
    expect(await read(plain)).toBeGreaterThan(ROWS / 2);
  });
});
