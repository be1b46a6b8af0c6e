import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { openStore, type Store, servedEventsJson } from '../store/index.js';
import { ENGINES, type TestDatabase } from '../store/testing/databases.js';
import { retestItem, retestPage } from './serialize.js';

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

describe.each(ENGINES)('the retest page the store writes on $engine', ({ create }) => {
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

  async function page(window: { offset: number; limit: number }) {
    const json = await store.retests.servedPage(team, window);
    return json === undefined ? undefined : JSON.parse(`[${json.toString('utf8')}]`);
  }

  it('is the items of the results listed, field for field and in the same order', async () => {
    for (const window of [
      { offset: 0, limit: 100 },
      { offset: 1, limit: 3 },
      { offset: 5, limit: 10 },
      { offset: 9, limit: 10 },
    ]) {
      const items = (await store.retests.list(team, window)).map(retestItem);
      const written = await page(window);
      expect(written).toEqual(items);
      for (const [i, item] of items.entries()) expect(Object.keys(written[i])).toEqual(Object.keys(item));
      const rendered = JSON.parse(retestPage(MESSAGE, await store.retests.served(team, window)));
      expect(rendered).toEqual({ message: MESSAGE, results: items });
    }
  });

  it('serves a result recorded before its served fields were kept (0006 to 0023) as it was served then', async () => {
    const [second] = await store.retests.list(team, { offset: 1, limit: 1 });
    const before = await page({ offset: 0, limit: 3 });
    await store.connection.db
      .updateTable('retest')
      .set({ served_fields: null, served_events: servedEventsJson(second!.events) })
      .where('id', '=', second!.id)
      .execute();
    const rendered = JSON.parse(
      retestPage(MESSAGE, await store.retests.served(team, { offset: 0, limit: 3 })),
    );
    expect(rendered.results).toEqual(before);
    // SQLite writes it from its columns in the page's query; PostgreSQL leaves the page to `served`.
    const written = await page({ offset: 0, limit: 3 });
    if (store.connection.engine === 'sqlite') expect(written).toEqual(before);
    else expect(written).toBeUndefined();
    expect(await page({ offset: 2, limit: 3 })).toBeDefined();
  });

  it('leaves a page with a result recorded before served events (0006) to the results to render', async () => {
    const [newest] = await store.retests.list(team, { offset: 0, limit: 1 });
    const before = await page({ offset: 0, limit: 1 });
    await store.connection.db
      .updateTable('retest')
      .set({ served_fields: null, served_events: null })
      .where('id', '=', newest!.id)
      .execute();
    expect(await store.retests.servedPage(team, { offset: 0, limit: 2 })).toBeUndefined();
    const rendered = JSON.parse(
      retestPage(MESSAGE, await store.retests.served(team, { offset: 0, limit: 1 })),
    );
    expect(rendered.results).toEqual(before);
    expect(rendered.results[0].event).toHaveLength(newest!.events.length);
  });
});
