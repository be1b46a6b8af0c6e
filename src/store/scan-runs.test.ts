import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

describe.each(ENGINES)('the finished runs of a scan on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let teamId: string;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    teamId = (await store.teams.ensure('default')).id;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  async function newScan(): Promise<string> {
    const scan = await store.scans.create({
      teamId,
      name: 'runs',
      targets: ['https://a.test', 'https://b.test'],
      templates: [{ id: 'one', path: 'one.yaml' }],
      assetIds: [],
      totalScan: 3,
    });
    return scan.id;
  }

  it('are recorded in batches, once each, and read back for that scan only', async () => {
    const scanId = await newScan();
    const other = await newScan();
    await store.runs.addDone(scanId, [
      { templateId: 'one', target: 0 },
      { templateId: 'self', target: -1 },
    ]);
    await store.runs.addDone(scanId, [
      { templateId: 'one', target: 0 },
      { templateId: 'one', target: 1 },
    ]);
    await store.runs.addDone(other, [{ templateId: 'one', target: 1 }]);
    const done = await store.runs.done(scanId);
    expect(done.sort((a, b) => a.target - b.target || a.templateId.localeCompare(b.templateId))).toEqual([
      { templateId: 'self', target: -1 },
      { templateId: 'one', target: 0 },
      { templateId: 'one', target: 1 },
    ]);
    expect(await store.runs.done(other)).toEqual([{ templateId: 'one', target: 1 }]);
  });

  it('takes a batch larger than one statement holds', async () => {
    const scanId = await newScan();
    const many = Array.from({ length: 1000 }, (_, i) => ({ templateId: `t${i % 7}`, target: i }));
    await store.runs.addDone(scanId, many);
    expect(await store.runs.done(scanId)).toHaveLength(1000);
  });

  it('lets a failed scan run again, and only a failed one', async () => {
    const scanId = await newScan();
    await store.scans.markRunning(scanId);
    await expect(store.scans.resume(scanId)).rejects.toThrow(/cannot resume scan .*: it is running/);
    await store.scans.fail(scanId, 'interrupted');
    await store.scans.resume(scanId);
    const scan = await store.scans.require(scanId);
    expect(scan.status).toBe('running');
    expect(scan.failureReason).toBe('');
    expect(scan.completedAt).toBeNull();
  });
});
