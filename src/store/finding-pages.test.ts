import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent, Severity } from '../event/index.js';
import type { TeamFindingFilter } from './finding-pages.js';
import type { Finding, VulnStatus } from './model.js';
import type { Store } from './store.js';
import { openStore } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
const HOSTS = ['App.Example.test', 'api.example.test', 'ÉCOLE.test', '50%_off.test'];
const DAY = 86_400_000;

function event(n: number): ResultEvent {
  const host = HOSTS[n % HOSTS.length] ?? '';
  return {
    'template-id': n % 3 === 0 ? 'Git-Config' : `tpl-${n % 5}`,
    info: {
      name: `finding ${n}`,
      author: [],
      tags: [],
      severity: SEVERITIES[n % SEVERITIES.length] ?? 'info',
    },
    type: 'http',
    host,
    'matched-at': `https://${host}/${n}`,
    timestamp: '2024-03-14T10:21:36.884Z',
    'matcher-status': true,
  };
}

/** What a filter must select, decided over every finding without the store's queries. */
function expected(all: readonly Finding[], teamId: string, filter: TeamFindingFilter): Finding[] {
  const term = (filter.search ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase());
  const lowerAscii = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return all
    .filter((f) => f.teamId === teamId)
    .filter((f) => filter.scanId === undefined || f.scanId === filter.scanId)
    .filter((f) => (filter.severities ?? []).length === 0 || filter.severities?.includes(f.severity))
    .filter((f) => (filter.statuses ?? []).length === 0 || filter.statuses?.includes(f.vulnStatus))
    .filter((f) => filter.since === undefined || f.createdAt >= filter.since)
    .filter(
      (f) => term === '' || lowerAscii(f.target).includes(term) || lowerAscii(f.templateId).includes(term),
    )
    .sort((a, b) => (a.id < b.id ? 1 : -1));
}

describe.each(ENGINES)('pages of findings on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  const teams: string[] = [];
  const scans: string[] = [];
  let all: Finding[] = [];
  const now = Date.now();

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    let n = 0;
    for (const name of ['red', 'green', 'blue']) {
      const team = await store.teams.ensure(name);
      teams.push(team.id);
      for (let s = 0; s < 2; s++) {
        const scan = await store.scans.create({ teamId: team.id, name: `${name} ${s}`, status: 'uploaded' });
        scans.push(scan.id);
        await store.findings.addMany(
          scan.id,
          Array.from({ length: 14 }, () => event(n++)),
        );
      }
    }
    const statuses: VulnStatus[] = ['open', 'fixed', 'false_positive', 'triaged'];
    const db = store.connection.db;
    const rows = await db.selectFrom('finding').select('id').orderBy('id').execute();
    for (const [i, { id }] of rows.entries()) {
      await store.findings.setStatus(id, statuses[i % statuses.length] ?? 'open');
      // Spread over the last 40 days, so `since` splits them.
      await db
        .updateTable('finding')
        .set({ created_at: now - (i % 40) * DAY })
        .where('id', '=', id)
        .execute();
    }
    for (const scanId of scans) for await (const f of store.findings.allOfScan(scanId)) all.push(f);
    all = all.sort((a, b) => (a.id < b.id ? 1 : -1));
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const filters: [string, (scans: string[]) => TeamFindingFilter][] = [
    ['no filter', () => ({})],
    ['one scan', (s) => ({ scanId: s[1] })],
    ['a scan of another team', (s) => ({ scanId: s[3] })],
    ['severities', () => ({ severities: ['critical', 'info'] })],
    ['severity within a scan', (s) => ({ scanId: s[0], severities: ['high'] })],
    ['statuses', () => ({ statuses: ['fixed', 'triaged'] })],
    ['a search in the target, any case', () => ({ search: 'APP.example' })],
    ['a search in the template id', () => ({ search: 'git-config' })],
    ['a search with % and _ taken literally', () => ({ search: '50%_' })],
    ['a search for a non-ASCII letter, matched as written', () => ({ search: 'ÉCOLE' })],
    ['a search folding only A–Z, the same on both engines', () => ({ search: 'école' })],
    ['a search with no match', () => ({ search: 'nowhere' })],
    ['the last week', () => ({ since: now - 7 * DAY })],
    [
      'everything together',
      (s) => ({
        scanId: s[0],
        severities: ['critical', 'high', 'medium'],
        statuses: ['open', 'fixed'],
        search: 'example',
        since: now - 30 * DAY,
      }),
    ],
  ];

  it.each(filters)('lists exactly what %s selects, newest first, with its total', async (_, filterOf) => {
    const filter = filterOf(scans);
    for (const [t, teamId] of teams.entries()) {
      const want = expected(all, teamId, filter);
      const page = await store.findingPages.list(teamId, filter, { offset: 0, limit: 1000 });
      expect(
        page.findings.map((f) => f.id),
        `team ${t}`,
      ).toEqual(want.map((f) => f.id));
      expect(page.total).toBe(want.length);
      for (const finding of page.findings) expect(finding.teamId).toBe(teamId);
    }
  });

  it('pages through a team’s findings without gaps or repeats', async () => {
    const teamId = teams[0] ?? '';
    const seen: string[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = await store.findingPages.list(teamId, {}, { offset, limit: 5 });
      seen.push(...page.findings.map((f) => f.id));
      expect(page.total).toBe(28);
      if (page.findings.length < 5) break;
    }
    expect(seen).toEqual(expected(all, teamId, {}).map((f) => f.id));
  });
});
