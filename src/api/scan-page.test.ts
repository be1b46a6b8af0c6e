import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGoDuration, formatTimestamp, openStore, type Store } from '../store/index.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { scanItem } from './serialize.js';

const NAMES = [
  'plain',
  'Say "Hello" \\ twice',
  'tab\tnew\nline\r\u0001\u001f\u007f',
  '</script><b>',
  'line\u2028sep\u2029',
  'ÜNÏCÖDÉ 東京タワー 🙂',
  '',
];

/** Times the page must write as `Date.toISOString` does: the epoch, around it, a leap day, the last millisecond of 9999. */
const TIMES = [
  0,
  1,
  999,
  1000,
  -1,
  -1001,
  -86_400_000,
  Date.UTC(2024, 1, 29, 23, 59, 59, 5),
  253_402_300_799_999,
];

/** Elapsed times on each side of the duration format's edges. */
const ELAPSED = [
  0,
  1,
  999,
  1000,
  1499,
  1500,
  59_499,
  59_500,
  60_000,
  3_599_499,
  3_599_500,
  3_600_000,
  86_400_000 * 400 + 123,
  -5,
];

describe.each([
  ['SQLite', sqliteTestDatabase],
  ['PostgreSQL', postgresTestDatabase],
] as const)('the scans page %s serves', (engine, create) => {
  let database: TestDatabase;
  let store: Store;
  let team = '';
  /** When the running scan started: an hour and 2 min 3.25 s before the setup ended. */
  let startedAt = 0;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    team = (await store.teams.ensure('pages')).id;
    const assets = [
      await store.assets.create({ teamId: team, name: 'a', targets: ['https://a.test'] }),
      await store.assets.create({ teamId: team, name: 'b', targets: ['https://b.test'] }),
    ];
    for (const [i, name] of NAMES.entries()) {
      await store.scans.create({
        teamId: team,
        name,
        targets: ['https://x.test', 'https://y.test'].slice(0, i % 3),
        templates: [
          { id: `t-${i}-public`, url: `https://templates.test/${i}.yaml`, isPublic: true },
          { id: `t-${i}-own`, path: `/own/${i}.yaml` },
          { id: `t-${i}-"quoted"`, url: '', isPublic: i % 2 === 0 },
        ].slice(0, i % 4),
        assetIds: assets.slice(0, i % 3).map((a) => a.id),
        status: i % 2 === 0 ? 'queued' : 'starting',
        isCloud: i % 2 === 0,
      });
    }
    const running = await store.scans.create({ teamId: team, name: 'running' });
    await store.scans.markRunning(running.id);
    startedAt = Date.now() - 3_723_250;
    // Far from a second's edge, so the elapsed time read a few milliseconds apart rounds alike.
    await store.connection.db
      .updateTable('scan')
      .set({ started_at: startedAt, progress: 42 })
      .where('id', '=', running.id)
      .execute();
    const failed = await store.scans.create({ teamId: team, name: 'failed' });
    await store.scans.markRunning(failed.id);
    await store.scans.fail(failed.id, 'target "unreachable"\nafter 3 tries');
    for (const [i, ms] of ELAPSED.entries()) {
      const scan = await store.scans.create({ teamId: team, name: `imported ${i}`, status: 'uploaded' });
      await store.connection.db
        .updateTable('scan')
        .set({
          elapsed_ms: ms,
          is_rescan: i % 2 === 0 ? 0 : 1,
          rescan_count: i,
          severity_info: i,
          severity_critical: 1000 - i,
          severity_unknown: i * 7,
        })
        .where('id', '=', scan.id)
        .execute();
    }
    for (const [i, ms] of TIMES.entries()) {
      const scan = await store.scans.create({ teamId: team, name: `timed ${i}`, status: 'uploaded' });
      await store.connection.db
        .updateTable('scan')
        .set({ completed_at: ms, schedule_last_run: ms, updated_at: ms })
        .where('id', '=', scan.id)
        .execute();
    }
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  async function servedItems(query: Parameters<Store['scans']['list']>[1], at = Date.now()) {
    const { json } = await store.scans.servedPage(team, query, at);
    return JSON.parse(`[${json.toString('utf8')}]`) as Record<string, unknown>[];
  }

  it('serves every scan as the API renders the scan it reads, field for field and in the same order', async () => {
    const at = Date.now();
    const items = await servedItems({ offset: 0, limit: 1000 }, at);
    expect(items).toHaveLength(NAMES.length + 2 + ELAPSED.length + TIMES.length);
    for (const item of items) {
      const scan = (await store.scans.get(item.scan_id as string, team))!;
      // The store gives a running scan its elapsed time when it reads it: as of the page's time here.
      const read = scan.status === 'running' ? { ...scan, elapsedMs: at - scan.startedAt! } : scan;
      const expected = JSON.parse(JSON.stringify(scanItem(read)));
      expect(item).toEqual(expected);
      expect(Object.keys(item)).toEqual(Object.keys(expected));
      expect(Object.keys(item.severity as object)).toEqual(Object.keys(expected.severity));
    }
  });

  it("writes elapsed times as Go durations, and a running scan's from the request's time", async () => {
    const items = await servedItems({ offset: 0, limit: 1000, search: 'imported' });
    const byName = new Map(items.map((item) => [item.name, item.scan_time_elapsed]));
    for (const [i, ms] of ELAPSED.entries()) {
      const expected = formatGoDuration(ms >= 1000 ? Math.round(ms / 1000) * 1000 : ms);
      expect(byName.get(`imported ${i}`), `${ms} ms`).toBe(expected);
    }
    const [running] = await servedItems({ offset: 0, limit: 1, search: 'running' }, startedAt + 4_723_250);
    expect(running?.scan_time_elapsed).toBe('1h18m43s');
  });

  it('writes timestamps as Date.toISOString does, before 1970 and up to the year 9999', async () => {
    const items = await servedItems({ offset: 0, limit: 1000, search: 'timed' });
    for (const [i, ms] of TIMES.entries()) {
      const item = items.find((it) => it.name === `timed ${i}`);
      expect(item?.completed_at, `${ms}`).toBe(formatTimestamp(ms));
      expect(item?.schedule_last_run).toBe(new Date(ms).toISOString());
    }
  });

  it('lists the same scans in the same order as the store, for pages, filters, searches and sorts', async () => {
    const queries = [
      { offset: 0, limit: 5 },
      { offset: 7, limit: 9 },
      { offset: 30, limit: 50 },
      { offset: 0, limit: 10, statuses: ['uploaded' as const, 'failed' as const] },
      { offset: 2, limit: 4, search: 'IMPORTED 1' },
      { offset: 0, limit: 10, search: 'no such scan' },
      { offset: 3, limit: 8, sort: [{ field: 'severity' as const, direction: 'desc' as const }] },
      {
        offset: 0,
        limit: 20,
        sort: [
          { field: 'name' as const, direction: 'asc' as const },
          { field: 'progress' as const, direction: 'desc' as const },
        ],
      },
    ];
    for (const query of queries) {
      const listed = await store.scans.list(team, query);
      const served = await servedItems(query);
      expect(served.map((s) => s.scan_id)).toEqual(listed.map((s) => s.id));
    }
  });

  it('says a page is live only while a scan on it runs', async () => {
    const now = Date.now();
    expect((await store.scans.servedPage(team, { offset: 0, limit: 1000 }, now))?.live).toBe(true);
    expect((await store.scans.servedPage(team, { offset: 0, limit: 5, search: 'timed' }, now))?.live).toBe(
      false,
    );
    expect(await store.scans.servedPage(team, { offset: 5000, limit: 5 }, now)).toEqual({
      json: Buffer.alloc(0),
      live: false,
    });
  });

  it.runIf(engine === 'PostgreSQL')(
    'writes lists kept with a space after each comma, as earlier versions kept them, as JSON.stringify does',
    async () => {
      const at = Date.now();
      const query = { offset: 0, limit: 1000 };
      const before = (await store.scans.servedPage(team, query, at)).json;
      expect(before.toString('utf8')).toContain('"template_ids":["t-1-public"],');
      expect(before.toString('utf8')).not.toContain('", "');
      await sql`update scan set listed_template_ids = listed_template_ids::jsonb::text,
        listed_public_templates = listed_public_templates::jsonb::text,
        listed_template_urls = listed_template_urls::jsonb::text,
        listed_asset_ids = listed_asset_ids::jsonb::text`.execute(store.connection.db);
      const spaced = await sql<{
        n: number;
      }>`select count(*)::int as n from scan where listed_template_ids like '%", "%'`.execute(
        store.connection.db,
      );
      expect(spaced.rows[0]?.n).toBeGreaterThan(0);
      expect((await store.scans.servedPage(team, query, at)).json.equals(before)).toBe(true);
    },
  );

  it.runIf(engine === 'SQLite')(
    'writes the same bytes from a read thread as from the main connection',
    async () => {
      const direct = await openStore(database.location, { readThreads: 0 });
      try {
        const at = Date.now();
        for (const query of [
          { offset: 0, limit: 1000 },
          { offset: 0, limit: 3, search: 'ÜNÏCÖDÉ' },
        ]) {
          const threaded = (await store.scans.servedPage(team, query, at)).json;
          const main = (await direct.scans.servedPage(team, query, at)).json;
          expect(Buffer.isBuffer(threaded) && Buffer.isBuffer(main)).toBe(true);
          expect(threaded.equals(main)).toBe(true);
          expect(threaded.toString('utf8')).toContain('東京タワー 🙂');
        }
      } finally {
        await direct.close();
      }
    },
  );

  it('serves any name as the store reads it back', async () => {
    const names = fc.string({ unit: 'binary', maxLength: 24 }).filter((name) => !name.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const scan = await store.scans.create({ teamId: team, name: `fuzz ${name}`, status: 'uploaded' });
        try {
          const served = await servedItems({ offset: 0, limit: 1 });
          expect(served[0]?.scan_id).toBe(scan.id);
          expect(served[0]?.name).toBe((await store.scans.get(scan.id))?.name);
        } finally {
          await store.scans.delete(scan.id, team);
        }
      }),
      { numRuns: 60 },
    );
  });
});
