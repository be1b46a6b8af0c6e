import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent, Severity } from '../event/index.js';
import { openStore, type Store, type TeamFindingFilter } from '../store/index.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { resultsPageText, writtenResultsPage } from './routes/result-items.js';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

function event(n: number): ResultEvent {
  const host = `https://host-${n % 4}.test`;
  return {
    'template-id': n % 3 === 0 ? 'git-config' : `t-${n % 5}`,
    info: {
      name: `Finding "${n}" \\ </script>`,
      author: ['a'],
      tags: ['x'],
      severity: SEVERITIES[n % SEVERITIES.length]!,
      description: `line\nbreak \u2028 ünïcödé 🙂 ${n}`,
      reference: [`https://ref.test/${n}`],
    },
    'template-path': `/templates/t-${n % 5}.yaml`,
    'template-url': n % 2 === 0 ? `https://templates.test/t-${n % 5}` : '',
    type: 'http',
    host,
    'matched-at': `${host}/${n}?q=\u2028<script>`,
    request: `GET /${n} HTTP/1.1\r\nHost: x\r\n\r\n`,
    response: `HTTP/1.1 200 OK\r\n\r\nbody \\ "quoted" \u0001 東京 ${n}`,
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
  };
}

function parsed(text: string | Buffer) {
  return JSON.parse(Buffer.isBuffer(text) ? text.toString('utf8') : text);
}

describe.each([
  { engine: 'SQLite', create: sqliteTestDatabase },
  { engine: 'PostgreSQL', create: postgresTestDatabase },
])('the findings page $engine writes', ({ engine, create }) => {
  let database: TestDatabase;
  let store: Store;
  let team = '';
  let scans: string[] = [];

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    team = (await store.teams.ensure('findings')).id;
    scans = [];
    for (const name of ['first', 'second']) {
      const scan = await store.scans.create({ teamId: team, name });
      scans.push(scan.id);
      for (let n = 0; n < 14; n++) {
        await store.findings.add(
          scan.id,
          event(n + (name === 'second' ? 100 : 0)),
          n % 2 === 0
            ? { template: { id: `t-${n}`, path: `/t/${n}.yaml`, url: '', content: `id: t-${n}\n# "é"\n` } }
            : {},
        );
      }
    }
    const [some] = await store.findingPages.served(team, {}, { offset: 3, limit: 1 }).then((p) => p.findings);
    await store.findings.setStatus(some!.id, 'fixed');
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const filters: TeamFindingFilter[] = [
    {},
    { severities: ['high', 'critical'] },
    { statuses: ['fixed'] },
    { severities: ['medium'], statuses: ['open'] },
    { search: 'HOST-2' },
    { search: 'git-config' },
    { search: 'no such finding' },
    { since: 0 },
  ];
  const windows = [
    { offset: 0, limit: 100 },
    { offset: 1, limit: 3 },
    { offset: 5, limit: 10 },
    { offset: 27, limit: 10 },
    { offset: 90, limit: 10 },
  ];

  it('is the page the findings render, field for field and in the same order', async () => {
    const scoped = [...filters, { scanId: scans[1] }, { scanId: scans[0], severities: ['low' as const] }];
    for (const filter of scoped) {
      for (const window of windows) {
        const written = await store.findingPages.servedPage(team, filter, window);
        expect(written, JSON.stringify({ filter, window })).toBeDefined();
        const served = await store.findingPages.served(team, filter, window);
        const expected = parsed(resultsPageText(served.findings, served.total, window));
        const text = writtenResultsPage(written!, window).text;
        const actual = parsed(text);
        expect(actual, JSON.stringify({ filter, window })).toEqual(expected);
        // PostgreSQL's page is joined by the API from texts JSON.stringify wrote: the same bytes.
        if (engine === 'PostgreSQL')
          expect(text.toString()).toBe(resultsPageText(served.findings, served.total, window));
        expect(Object.keys(actual)).toEqual(Object.keys(expected));
        for (const [i, item] of actual.data.entries())
          expect(Object.keys(item)).toEqual(Object.keys(expected.data[i]));
      }
    }
  });

  it('shows a finding triaged since it was recorded with its new status and update time', async () => {
    const [first] = (await store.findingPages.served(team, {}, { offset: 0, limit: 1 })).findings;
    await store.findings.setStatus(first!.id, 'false_positive');
    const written = await store.findingPages.servedPage(team, {}, { offset: 0, limit: 1 });
    const [item] = parsed(writtenResultsPage(written!, { offset: 0, limit: 1 }).text).data;
    expect(item.vuln_status).toBe('false_positive');
    expect(Date.parse(item.updated_at)).toBeGreaterThan(first!.updatedAt - 1);
    expect(item.vuln_id).toBe(first!.id);
  });

  /** The page `servedPage` writes, and the one the API renders from the findings read, as texts. */
  async function bothPages(window: { offset: number; limit: number }) {
    const written = await store.findingPages.servedPage(team, {}, window);
    const served = await store.findingPages.served(team, {}, window);
    return {
      written: written === undefined ? undefined : writtenResultsPage(written, window).text.toString(),
      rendered: resultsPageText(served.findings, served.total, window),
    };
  }

  it('writes a finding recorded before served heads from its columns on PostgreSQL, the same bytes', async () => {
    const [second] = (await store.findingPages.served(team, {}, { offset: 1, limit: 1 })).findings;
    await store.connection.db
      .updateTable('finding')
      .set({ served_head: null })
      .where('id', '=', second!.id)
      .execute();
    const { written, rendered } = await bothPages({ offset: 0, limit: 4 });
    if (engine === 'PostgreSQL') expect(written).toBe(rendered);
    else expect(parsed(written!)).toEqual(parsed(rendered));
  });

  it('leaves a page with a finding recorded before served fields to the findings to render on SQLite', async () => {
    const [newest] = (await store.findingPages.served(team, {}, { offset: 0, limit: 1 })).findings;
    await store.connection.db
      .updateTable('finding')
      .set({ served_fields: null })
      .where('id', '=', newest!.id)
      .execute();
    const { written, rendered } = await bothPages({ offset: 0, limit: 2 });
    // PostgreSQL writes its served fields from its event in the same statement.
    if (engine === 'PostgreSQL') expect(written).toBe(rendered);
    else expect(written).toBeUndefined();
    expect(await store.findingPages.servedPage(team, {}, { offset: 1, limit: 2 })).toBeDefined();
  });
});
