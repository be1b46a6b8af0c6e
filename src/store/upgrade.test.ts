import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from './id.js';
import { migrations } from './migrations.js';
import { servedEvent, servedFindingFields } from './served-event.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

const BEFORE = '0005_scan_authentication';

describe.each(ENGINES)('upgrading a store of migration 0005 on $engine', ({ engine, create }) => {
  let database: TestDatabase;
  let store: Store;
  let team = '';
  const old = { scans: [] as string[], retest: '' };
  let applied: string[] = [];

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location, { migrate: false });
    const migrator = new Migrator({
      db: store.connection.db,
      provider: { getMigrations: async () => ({ ...migrations }) },
    });
    const { error } = await migrator.migrateTo(BEFORE);
    expect(error).toBeUndefined();
    const db = store.connection.db;
    team = newId();
    await db.insertInto('team').values({ id: team, name: 'old', created_at: 0 }).execute();
    const start = Date.UTC(2024, 0, 1);
    for (let i = 0; i < 40; i++) {
      const id = newId();
      old.scans.push(id);
      const at = start + i * 6 * 3_600_000;
      const name = `Legacy Scan ${i} Über`;
      const values = {
        id,
        team_id: team,
        name,
        name_folded: name.toLowerCase(),
        status: ['finished', 'failed'][i % 2]!,
        created_at: at,
        updated_at: at,
      };
      // The other columns have their defaults.
      await db
        .insertInto('scan')
        .values(values as never)
        .execute();
    }
    // The second scan's templates, out of their order by insertion, and its asset lists.
    for (const [position, id, url, isPublic] of [
      [2, 'later', '', 1],
      [0, 'first', 'https://example.com/first', 0],
      [1, 'second "q"', '', 1],
    ] as const)
      await sql`insert into scan_template (scan_id, position, template_id, template_path, template_url, is_public)
        values (${old.scans[1]}, ${position}, ${id}, '', ${url}, ${isPublic})`.execute(db);
    for (const asset of ['asset-z', 'asset-a']) {
      await sql`insert into asset_list (id, team_id, name, name_folded, asset_count, uploaded_at)
        values (${asset}, ${team}, ${asset}, ${asset}, 0, 0)`.execute(db);
      await sql`insert into scan_asset (scan_id, asset_id) values (${old.scans[1]}, ${asset})`.execute(db);
    }
    const finding = newId();
    await sql`insert into finding (id, team_id, scan_id, vuln_hash, vuln_status, severity, template_id, template_path,
      template_url, target, event, created_at, updated_at)
      values (${finding}, ${team}, ${old.scans[0]}, 'h', 'open', 'low', 't', '', '', 'a.test', '{}', 1, 1)`.execute(
      db,
    );
    old.retest = newId();
    await sql`insert into retest (id, team_id, finding_id, scan_id, target, template_id, template_path, template_url,
      matcher_status, result_type, vuln_status, events, created_at, updated_at)
      values (${old.retest}, ${team}, ${finding}, ${old.scans[0]}, 'a.test', 't', '', '', 1, 'matched', 'open',
      ${JSON.stringify([{ 'template-id': 't', 'matcher-status': true }])}, 2, 2)`.execute(db);
    applied = await store.migrate();
    expect(applied).toEqual([
      '0006_served_events',
      '0007_scan_listing_indexes',
      '0008_scan_status_buckets',
      '0009_scan_name_search',
      '0010_scan_runs_done',
      '0011_api_key_scope',
      '0012_finding_team_order',
      '0013_dashboard_finding_indexes',
      '0014_retest_requests',
      '0015_finding_counts',
      '0016_served_fields_ascending_sorts',
      '0017_scan_auth_rejected',
      '0018_finding_search_candidates',
      '0019_scan_name_pairs',
      '0020_bucket_spans',
      '0021_scan_name_grams',
      '0022_scan_template_position',
      '0023_scan_lists',
      '0024_retest_served_fields',
      '0025_scan_lists_compact',
      '0026_finding_served_head',
      '0027_change_notifications_name_table',
      '0028_served_texts_kept_inline',
      '0029_scan_served',
    ]);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('advises rewriting the rows it already held on PostgreSQL, and nothing on SQLite', async () => {
    const advice = await store.adviceAfter(applied);
    if (store.engine === 'postgres') {
      expect(advice).toEqual([
        expect.stringContaining('`VACUUM FULL finding, retest;` then `VACUUM finding, retest;`'),
      ]);
    } else {
      expect(advice).toEqual([]);
    }
    expect(await store.adviceAfter(applied.filter((name) => !name.startsWith('0028')))).toEqual([]);
  });

  it('applies nothing the second time', async () => {
    expect(await store.migrate()).toEqual([]);
  });

  it('counts the scans it already held per status and day', async () => {
    const counted = await store.connection.db
      .selectFrom('scan_status_bucket')
      .select(({ fn }) => ['status', fn.sum<number>('n').as('n')])
      .where('team_id', '=', team)
      .groupBy('status')
      .orderBy('status')
      .execute();
    expect(counted.map((r) => [r.status, Number(r.n)])).toEqual([
      ['failed', 20],
      ['finished', 20],
    ]);
  });

  it('sums the day counts it already held over spans, on SQLite', async () => {
    if (store.connection.engine !== 'sqlite') return;
    const spans = await store.connection.db
      .selectFrom('scan_status_bucket_span')
      .select(['status', 'span', 'n'])
      .where('team_id', '=', team)
      .orderBy('status')
      .execute();
    // 40 scans 6 hours apart from 2024-01-01: ten days, all in the span from 2023-12-21.
    const span = Date.UTC(2023, 11, 21);
    expect(spans.map((r) => [r.status, Number(r.span), Number(r.n)])).toEqual([
      ['failed', span, 20],
      ['finished', span, 20],
    ]);
  });

  it('finds the scans it already held by a word of their names', async () => {
    const found = await store.scans.list(team, { offset: 0, limit: 100, search: 'scan 3' });
    expect(found.map((s) => s.name).sort()).toEqual(
      ['Legacy Scan 3 Über', ...Array.from({ length: 10 }, (_, i) => `Legacy Scan 3${i} Über`)].sort(),
    );
    expect(await store.scans.list(team, { offset: 0, limit: 100, search: 'ÜBER' })).toHaveLength(40);
  });

  it("marks the days of its names' grams per span of 32 days", async () => {
    const grams = await store.connection.db
      .selectFrom('scan_name_gram')
      .select(['gram', 'span', 'days'])
      .where('team_id', '=', team)
      .where('gram', 'in', ['le', 'leg', 'n 3', ' 39', 'zz'])
      .orderBy('gram')
      .execute();
    // Ten days from 2024-01-01, the 12th to the 21st of the span from 2023-12-21.
    const span = Date.UTC(2023, 11, 21);
    const tenDays = ((1 << 10) - 1) << 11;
    expect(grams.map((r) => [r.gram, Number(r.span), r.days])).toEqual([
      [' 39', span, 1 << 20],
      ['le', span, tenDays],
      ['leg', span, tenDays],
      // Scan 3 on the first day, scans 30–39 on the last three.
      ['n 3', span, (1 << 11) | (0b111 << 18)],
    ]);
  });

  it('serves the retest results it already held from their raw events', async () => {
    const [listed] = await store.retests.list(team, { offset: 0, limit: 1 });
    expect(listed?.id).toBe(old.retest);
    const served = await store.retests.served(team, { offset: 0, limit: 1 });
    expect(JSON.parse(`{${served[0]?.fields}}`).event).toEqual([
      servedEvent({ 'template-id': 't', 'matcher-status': true } as never),
    ]);
    expect(await store.retests.servedPage(team, { offset: 0, limit: 1 })).toBeUndefined();
  });

  it('counts the findings it already held and serves them from their raw events', async () => {
    expect(await store.findingPages.count(team, {})).toBe(1);
    expect(await store.findingPages.count(team, { severities: ['low'], statuses: ['open'] })).toBe(1);
    expect(await store.findingPages.count(team, { search: 'A.TEST' })).toBe(1);
    const page = await store.findingPages.served(team, {}, { offset: 0, limit: 10 });
    expect(page.total).toBe(1);
    expect(page.findings[0]?.servedFields).toBe(servedFindingFields({} as never));
  });

  it('keeps the lists of the scans it already held on their rows', async () => {
    expect(await store.scans.require(old.scans[1]!)).toMatchObject({
      templateIds: ['first', 'second "q"', 'later'],
      publicTemplates: ['second "q"', 'later'],
      templateUrls: ['https://example.com/first'],
      assetIds: ['asset-a', 'asset-z'],
    });
    expect(await store.scans.require(old.scans[0]!)).toMatchObject({ templateIds: [], assetIds: [] });
    const page = await store.scans.servedPage(team, { offset: 0, limit: 100 }, 0);
    const served = (JSON.parse(`[${page.json.toString('utf8')}]`) as { scan_id: string }[]).find(
      (scan) => scan.scan_id === old.scans[1],
    );
    expect(served).toMatchObject({
      template_ids: ['first', 'second "q"', 'later'],
      asset_ids: ['asset-a', 'asset-z'],
    });
  });

  it('keeps those lists as JSON.stringify writes them, without a space after each comma', async () => {
    const row = await store.connection.db
      .selectFrom('scan')
      .select(['listed_template_ids', 'listed_public_templates', 'listed_template_urls', 'listed_asset_ids'])
      .where('id', '=', old.scans[1]!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      listed_template_ids: JSON.stringify(['first', 'second "q"', 'later']),
      listed_public_templates: JSON.stringify(['second "q"', 'later']),
      listed_template_urls: JSON.stringify(['https://example.com/first']),
      listed_asset_ids: JSON.stringify(['asset-a', 'asset-z']),
    });
  });

  it.runIf(engine === 'postgres')(
    'keeps the served text of every scan it already held on PostgreSQL, as a page writes it',
    async () => {
      const page = await store.scans.servedPage(team, { offset: 0, limit: 100 }, 0);
      const kept = await sql<{ served: string | null }>`select served from scan where team_id = ${team}
        order by created_at desc, id desc`.execute(store.connection.db);
      expect(kept.rows).toHaveLength(old.scans.length);
      expect(kept.rows.map((row) => row.served).join(',')).toBe(page.json.toString('utf8'));
    },
  );

  it('finds the findings it already held by a search of their targets', async () => {
    const page = await store.findingPages.served(team, { search: 'A.TEST' }, { offset: 0, limit: 10 });
    expect(page.total).toBe(1);
    expect(page.findings.map((f) => f.target)).toEqual(['a.test']);
  });
});
