import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { openStore, type Store } from '../store/index.js';
import { ENGINES, type TestDatabase } from '../store/testing/databases.js';
import { StoreRecorder } from './store-recorder.js';

const finding = (n: number): ResultEvent => ({
  'template-id': 'exposure',
  info: { name: 'Exposure', author: ['k'], tags: null, severity: n % 2 === 0 ? 'high' : 'low' },
  type: 'http',
  host: 'app.test',
  'matched-at': `https://app.test/item/${n}`,
  timestamp: '2024-05-01T10:00:00Z',
  'matcher-status': true,
});

const start = {
  name: 'recorder',
  targets: ['https://app.test'],
  templates: [{ id: 'exposure', path: '/t/exposure.yaml', content: 'id: exposure\n' }],
  assetIds: [],
  totalRuns: 1,
};

describe.each(ENGINES)('StoreRecorder ($engine)', ({ create }) => {
  let db: TestDatabase;
  let store: Store;
  let teamId: string;

  beforeAll(async () => {
    db = await create();
    store = await openStore(db.location);
    teamId = (await store.teams.ensure('default')).id;
  });

  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('records a burst of findings, every one, before the end state', async () => {
    const recorder = new StoreRecorder(store, teamId);
    await recorder.start(start);
    expect((await store.scans.get(recorder.id ?? ''))?.status).toBe('running');
    for (let n = 0; n < 300; n++) recorder.finding(finding(n));
    await recorder.finish();
    const scan = await store.scans.get(recorder.id ?? '');
    expect(scan).toMatchObject({ status: 'finished', progress: 100, severity: { high: 150, low: 150 } });
    const stored = await store.findings.ofScan(recorder.id ?? '', { limit: 1000 });
    expect(stored).toHaveLength(300);
  });

  it('writes progress at most once per interval', async () => {
    let now = 0;
    const recorder = new StoreRecorder(store, teamId, { progressIntervalMs: 1000, now: () => now });
    await recorder.start({ ...start, totalRuns: 100 });
    const progressNow = async () => {
      await recorder.written();
      return (await store.scans.get(recorder.id ?? ''))?.progress;
    };
    recorder.progress({ runsDone: 10, runsTotal: 100, percent: 10 });
    expect(await progressNow()).toBe(10);
    now = 500;
    recorder.progress({ runsDone: 20, runsTotal: 100, percent: 20 });
    expect(await progressNow()).toBe(10);
    now = 1500;
    recorder.progress({ runsDone: 30, runsTotal: 100, percent: 30 });
    expect(await progressNow()).toBe(30);
    await recorder.fail('stopped');
    expect(await store.scans.get(recorder.id ?? '')).toMatchObject({
      status: 'failed',
      failureReason: 'stopped',
    });
  });

  it('records finished runs in a few batched writes, and resumes the same scan', async () => {
    const recorder = new StoreRecorder(store, teamId);
    await recorder.start({ ...start, totalRuns: 500 });
    const scanId = recorder.id ?? '';
    const addDone = store.runs.addDone.bind(store.runs);
    let writes = 0;
    store.runs.addDone = (id, runs) => {
      writes++;
      return addDone(id, runs);
    };
    try {
      for (let n = 0; n < 500; n++) recorder.runDone({ templateId: 'exposure', target: n });
      await recorder.fail('stopped');
    } finally {
      store.runs.addDone = addDone;
    }
    expect(await store.runs.done(scanId)).toHaveLength(500);
    expect(writes).toBeLessThanOrEqual(2);

    const resumed = new StoreRecorder(store, teamId, { resume: scanId });
    await resumed.start({ ...start, totalRuns: 500 });
    expect(resumed.id).toBe(scanId);
    expect((await store.scans.get(scanId))?.status).toBe('running');
    resumed.finding(finding(1));
    await resumed.finish();
    expect(await store.scans.get(scanId)).toMatchObject({ status: 'finished', failureReason: '' });
  });
});
