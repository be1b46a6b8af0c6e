import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

const event: ResultEvent = {
  'template-id': 'declared-later',
  info: { name: 'Declared later', author: [], tags: [], severity: 'high' },
  type: 'http',
  host: 'app.test',
  'matched-at': 'https://app.test/x',
  timestamp: '2026-11-29T10:00:00Z',
  'matcher-status': true,
};

describe.each(ENGINES)("a scan's lists kept on its row ($engine)", ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let teamId: string;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    teamId = (await store.teams.ensure('lists')).id;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** The lists as kept on the scan's row, parsed. */
  async function kept(scanId: string) {
    const row = await store.connection.db
      .selectFrom('scan')
      .select(['listed_template_ids', 'listed_public_templates', 'listed_template_urls', 'listed_asset_ids'])
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow();
    return Object.fromEntries(Object.entries(row).map(([name, text]) => [name, JSON.parse(text)]));
  }

  it('are empty for a scan without templates or assets', async () => {
    const scan = await store.scans.create({ teamId, name: 'bare' });
    expect(await kept(scan.id)).toEqual({
      listed_template_ids: [],
      listed_public_templates: [],
      listed_template_urls: [],
      listed_asset_ids: [],
    });
    expect(scan).toMatchObject({ templateIds: [], publicTemplates: [], templateUrls: [], assetIds: [] });
  });

  it('follow every write of its templates: declared, added by an import, declared by a finding', async () => {
    const assets = await Promise.all(
      ['b', 'a'].map((name) => store.assets.create({ teamId, name, targets: ['https://app.test'] })),
    );
    const assetIds = assets.map((asset) => asset.id);
    const scan = await store.scans.create({
      teamId,
      name: 'written three ways',
      templates: [
        { id: 'zeta', isPublic: true, url: 'https://example.com/zeta' },
        { id: 'alpha' },
        { id: 'zeta' },
        { id: 'mu "quoted" ü', url: 'https://example.com/mu' },
      ],
      assetIds: [assetIds[1]!, assetIds[0]!, assetIds[1]!],
    });
    expect(await kept(scan.id)).toEqual({
      listed_template_ids: ['zeta', 'alpha', 'mu "quoted" ü'],
      listed_public_templates: ['zeta'],
      listed_template_urls: ['https://example.com/zeta', 'https://example.com/mu'],
      listed_asset_ids: [...assetIds].sort(),
    });
    await store.scans.addTemplates(scan.id, [{ id: 'alpha' }, { id: 'beta', isPublic: true }]);
    await store.scans.markRunning(scan.id);
    await store.findings.add(scan.id, event, { template: { id: 'declared-later', content: 'id: x\n' } });
    // A template the scan has already: nothing changes.
    await store.findings.add(scan.id, { ...event, host: 'other.test' }, { template: { id: 'beta' } });
    const lists = {
      listed_template_ids: ['zeta', 'alpha', 'mu "quoted" ü', 'beta', 'declared-later'],
      listed_public_templates: ['zeta', 'beta'],
      listed_template_urls: ['https://example.com/zeta', 'https://example.com/mu'],
      listed_asset_ids: [...assetIds].sort(),
    };
    expect(await kept(scan.id)).toEqual(lists);
    // As the scan is read, listed, and as the rows give them.
    expect(await store.scans.require(scan.id)).toMatchObject({
      templateIds: lists.listed_template_ids,
      publicTemplates: lists.listed_public_templates,
      templateUrls: lists.listed_template_urls,
      assetIds: lists.listed_asset_ids,
    });
    const [listed] = await store.scans.list(teamId, { offset: 0, limit: 1 });
    expect(listed?.templateIds).toEqual(lists.listed_template_ids);
    expect((await store.scans.templates(scan.id)).map((t) => t.id)).toEqual(lists.listed_template_ids);
  });
});
