import fc from 'fast-check';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanListsUpdate } from './scan-lists.js';
import {
  type ServedScanRow,
  scanTextColumns,
  servedScanJson,
  servedScanOf,
  servedScanText,
} from './served-scans.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from './testing/databases.js';

describe('a scan as SQLite writes it for /v1/scans', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const written = sql<{ text: string }>`select ${servedScanJson()} as text
    from scan s, (select 0 as now) clock where s.id = ${'any scan'}`;

  it('reads no row of its templates or assets: their lists are kept on the scan', async () => {
    const plan = await sql<{ detail: string }>`explain query plan ${written}`.execute(store.connection.db);
    const details = plan.rows.map((row) => row.detail);
    expect(details.filter((detail) => /scan_template|scan_asset|TEMP B-TREE/.test(detail))).toEqual([]);
  });

  it("keeps the lists written from the scan's templates in their order, sorting none", async () => {
    const update = scanListsUpdate(store.connection.db, 'sqlite', 'any scan').compile();
    const plan = await store.connection.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${update.sql}`, [...update.parameters]),
    );
    const details = plan.rows.map((row) => row.detail);
    expect(details).toContainEqual(expect.stringContaining('USING INDEX scan_template_position (scan_id=?)'));
    expect(details.filter((detail) => detail.includes('TEMP B-TREE'))).toEqual([]);
  });

  it('lists the templates in the order the scan declared them, later ones after', async () => {
    const team = await store.teams.ensure('ordered');
    const scan = await store.scans.create({
      teamId: team.id,
      name: 'ordered',
      templates: [
        { id: 'zeta', isPublic: true },
        { id: 'alpha', url: 'https://example.com/alpha' },
        { id: 'mu' },
      ],
    });
    await store.scans.addTemplates(scan.id, [{ id: 'beta', isPublic: true }, { id: 'alpha' }]);
    const page = await store.scans.servedPage(team.id, { offset: 0, limit: 10 }, 0);
    const [listed] = JSON.parse(`[${page?.json.toString('utf8')}]`) as Record<string, unknown>[];
    expect(listed).toMatchObject({
      template_ids: ['zeta', 'alpha', 'mu', 'beta'],
      public_templates: ['zeta', 'beta'],
      template_urls: ['https://example.com/alpha'],
    });
  });
});

describe("a scan's text as PostgreSQL keeps it for /v1/scans", () => {
  let database: TestDatabase;
  let store: Store;
  let team = '';

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    team = (await store.teams.ensure('kept')).id;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** The time pages are written at: a running scan's elapsed time is counted to it. */
  const NOW = 1_800_000_000_000;

  /**
   * Each scan's kept text, what a page writes from it (a running scan's elapsed time spliced in),
   * and the text the API's process writes from its columns.
   */
  async function keptAndWritten(scanId?: string) {
    let rows = store.connection.db
      .selectFrom('scan')
      .select([sql<string | null>`served`.as('served'), ...scanTextColumns(store.connection.db, 'always')])
      .where('team_id', '=', team);
    if (scanId !== undefined) rows = rows.where('id', '=', scanId);
    return (await rows.execute()).map((row) => ({
      row,
      kept: row.served,
      shown: row.served === null ? null : servedScanOf({ served: row.served, status: row.status }, NOW),
      written: servedScanText(row as ServedScanRow, NOW),
    }));
  }

  const LAST_OF_YEAR_9999 = 253_402_300_799_999;
  const scans = fc.record({
    name: fc.string({ unit: 'binary', maxLength: 20 }).filter((text) => !text.includes('\u0000')),
    failure: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
    frequency: fc.constantFrom('', 'daily', 'weekly "x"'),
    status: fc.constantFrom('queued', 'finished', 'failed', 'uploaded', 'running'),
    started: fc.option(fc.integer({ min: NOW - 400 * 86_400_000, max: NOW + 5_000 })),
    elapsed: fc.option(
      fc.oneof(
        fc.integer({ min: -5_000, max: 400 * 86_400_000 }),
        // Each side of the duration format's edges.
        fc.constantFrom(0, 999, 1_000, 1_499, 1_500, 59_499, 59_500, 3_599_499, 3_599_500, 3_600_000),
      ),
      // Often none: a running scan's elapsed time is then counted from when it started.
      { nil: null, freq: 2 },
    ),
    times: fc.array(
      fc.option(
        fc.oneof(
          fc.integer({ min: 0, max: LAST_OF_YEAR_9999 }),
          fc.constantFrom(0, 999, 1_000, LAST_OF_YEAR_9999, LAST_OF_YEAR_9999 + 1, -1, -62_167_219_200_000),
        ),
      ),
      { minLength: 3, maxLength: 3 },
    ),
    counts: fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 8, maxLength: 8 }),
    flags: fc.array(fc.constantFrom<0 | 1>(0, 1), { minLength: 3, maxLength: 3 }),
    templates: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    spaced: fc.boolean(),
  });

  it('keeps the text the API writes from its columns, byte for byte, for any scan, running ones as of the page', async () => {
    await fc.assert(
      fc.asyncProperty(scans, async (drawn) => {
        const scan = await store.scans.create({
          teamId: team,
          name: drawn.name,
          status: 'queued',
          templates: drawn.templates.map((id) => ({ id, isPublic: id.length % 2 === 0 })),
        });
        const [created, updated, completed] = drawn.times;
        const [progress, targets, total, critical, high, info, unknown, rescans] = drawn.counts;
        await store.connection.db
          .updateTable('scan')
          .set({
            status: drawn.status,
            failure_reason: drawn.failure,
            scan_frequency: drawn.frequency,
            elapsed_ms: drawn.elapsed,
            started_at: drawn.started,
            created_at: created ?? 0,
            updated_at: updated ?? 1,
            completed_at: completed,
            schedule_last_run: completed,
            progress: progress! % 101,
            total_target: targets!,
            total_scan: total!,
            severity_critical: critical!,
            severity_high: high!,
            severity_info: info!,
            severity_unknown: unknown!,
            rescan_count: rescans!,
            is_oss: drawn.flags[0]!,
            is_cloud: drawn.flags[1]!,
            is_rescan: drawn.flags[2]!,
          })
          .where('id', '=', scan.id)
          .execute();
        // Lists as versions before 0025 kept them: written from their columns.
        if (drawn.spaced)
          await sql`update scan set listed_template_ids = listed_template_ids::jsonb::text where id = ${scan.id}`.execute(
            store.connection.db,
          );
        const [{ row, kept, shown, written } = { row: undefined, kept: null, shown: null, written: '' }] =
          await keptAndWritten(scan.id);
        const outOfRange = [created ?? 0, updated ?? 1, completed]
          .filter((time) => time !== null && time !== undefined)
          .some((time) => time! < 0 || time! > LAST_OF_YEAR_9999);
        if (outOfRange || row?.listed_template_ids.includes(', ')) expect(kept).toBeNull();
        else expect(shown).toBe(written);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps the text up to date as the scan runs, progresses, adds templates and ends', async () => {
    const scan = await store.scans.create({ teamId: team, name: 'lifecycle', templates: [{ id: 'one' }] });
    const texts = async () => (await keptAndWritten(scan.id))[0]!;
    expect((await texts()).kept).toBe((await texts()).written);
    await store.scans.markRunning(scan.id);
    await store.scans.updateProgress(scan.id, { progress: 40, totalScan: 12 });
    const running = await texts();
    expect(running.kept).not.toBe(running.shown);
    expect(running.shown).toBe(running.written);
    expect(JSON.parse(running.shown!)).toMatchObject({ status: 'running', progress: 40 });
    await store.scans.addTemplates(scan.id, [{ id: 'two', isPublic: true }]);
    await store.scans.finish(scan.id);
    const ended = await texts();
    expect(ended.kept).toBe(ended.written);
    expect(ended.shown).toBe(ended.kept);
    expect(JSON.parse(ended.kept!)).toMatchObject({
      status: 'finished',
      progress: 100,
      total_scan: 12,
      template_ids: ['one', 'two'],
      public_templates: ['two'],
    });
    await store.scans.delete(scan.id, team);
  });
});
