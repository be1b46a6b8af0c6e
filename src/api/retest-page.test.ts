import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { openStore, type Store } from '../store/index.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { retestPage } from './serialize.js';

function event(n: number, host: string): ResultEvent {
  return {
    'template-id': `t-${n}`,
    info: { name: `Finding "${n}"`, author: ['a'], tags: ['x'], severity: n % 2 === 0 ? 'high' : 'low' },
    type: 'http',
    host,
    'matched-at': `${host}/${n}?q=\u2028<script>`,
    request: `GET /${n} HTTP/1.1\r\nHost: x\r\n\r\n`,
    response: `HTTP/1.1 200 OK\r\n\r\nbody \\ "quoted" \u0001 ünïcödé 🙂`,
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
  };
}

const MESSAGE = 'Successfully retrieved retest results';

describe('the retest page SQLite writes', () => {
  const create = sqliteTestDatabase;
  let database: TestDatabase;
  let store: Store;
  let team = '';

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    team = (await store.teams.ensure('retests')).id;
    const scan = await store.scans.create({ teamId: team, name: 'retested' });
    for (let n = 0; n < 6; n++) {
      const host = `https://host-${n}.test`;
      const { finding } = await store.findings.add(scan.id, event(n, host));
      const outcomes = ['matched', 'not_matched', 'error'] as const;
      await store.retests.record({
        vulnId: finding.id,
        resultType: outcomes[n % 3]!,
        events: n % 3 === 2 ? [] : [event(n, host), event(n + 100, host)],
        ...(n % 2 === 0
          ? {
              template: { id: `t-${n}-v2`, path: `/t/${n}.yaml`, url: '', content: `id: t-${n}-v2\n# "é"\n` },
            }
          : {}),
      });
    }
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('is the page the results render, field for field and in the same order', async () => {
    for (const window of [
      { offset: 0, limit: 100 },
      { offset: 1, limit: 3 },
      { offset: 5, limit: 10 },
      { offset: 9, limit: 10 },
    ]) {
      const json = await store.retests.servedPage(team, window);
      expect(json).toBeDefined();
      const served = JSON.parse(
        `{"message":${JSON.stringify(MESSAGE)},"results":[${json?.toString('utf8')}]}`,
      );
      const rendered = JSON.parse(retestPage(MESSAGE, await store.retests.served(team, window)));
      expect(served).toEqual(rendered);
      for (const [i, result] of served.results.entries())
        expect(Object.keys(result)).toEqual(Object.keys(rendered.results[i]));
    }
  });

  it('leaves a page with a result recorded before served events to the results to render', async () => {
    const [newest] = await store.retests.list(team, { offset: 0, limit: 1 });
    await store.connection.db
      .updateTable('retest')
      .set({ served_events: null })
      .where('id', '=', newest!.id)
      .execute();
    expect(await store.retests.servedPage(team, { offset: 0, limit: 2 })).toBeUndefined();
    expect(await store.retests.servedPage(team, { offset: 1, limit: 2 })).toBeDefined();
    const rendered = JSON.parse(
      retestPage(MESSAGE, await store.retests.served(team, { offset: 0, limit: 1 })),
    );
    expect(rendered.results[0].event).toHaveLength(newest!.events.length);
  });
});

describe('the retest page on PostgreSQL', () => {
  it('is left to the API to render from the results read, as PostgreSQL plans each run anew', async () => {
    const database = await postgresTestDatabase();
    const store = await openStore(database.location);
    try {
      const team = (await store.teams.ensure('retests')).id;
      const scan = await store.scans.create({ teamId: team, name: 'retested' });
      const { finding } = await store.findings.add(scan.id, event(1, 'https://one.test'));
      await store.retests.record({
        vulnId: finding.id,
        resultType: 'matched',
        events: [event(1, 'https://one.test')],
      });
      expect(await store.retests.servedPage(team, { offset: 0, limit: 10 })).toBeUndefined();
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
