import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanListsUpdate } from './scan-lists.js';
import { servedScanJson } from './served-scans.js';
import { openStore, type Store } from './store.js';
import { sqliteTestDatabase, type TestDatabase } from './testing/databases.js';

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
