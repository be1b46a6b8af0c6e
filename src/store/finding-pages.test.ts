import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Xid } from 'xid-ts';
import type { ResultEvent, Severity } from '../event/index.js';
import { FindingPages, type TeamFindingFilter } from './finding-pages.js';
import type { Finding, VulnStatus } from './model.js';
import type { Store } from './store.js';
import { openStore } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
const HOSTS = ['App.Example.test', 'api.example.test', 'ÉCOLE.test', '50%_off.test', 'back\\slash.test'];
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
  /** The first instant of an id bucket (2^17 s: the 15 bits of time in an id's first 3 characters) 20 days ago. */
  const bucketStart = Math.floor((now - 20 * DAY) / 1000 / 2 ** 17) * 2 ** 17 * 1000;

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
    // Recorded again over the last 40 days, so `since` splits them, each with an id made at its
    // instant as the store makes them. The last was recorded as a batch's `now` was taken 30 s
    // before its id, in the first second of an id bucket (see `SINCE_LAG_MS`).
    const made = await db.selectFrom('finding').selectAll().orderBy('id').execute();
    await db.deleteFrom('finding').execute();
    for (const [i, row] of made.entries()) {
      const at = i === made.length - 1 ? bucketStart - 30_000 : now - (i % 40) * DAY;
      const idAt = i === made.length - 1 ? bucketStart : at;
      await db
        .insertInto('finding')
        .values({ ...row, id: Xid.newWithTime(idAt / 1000).toString(), created_at: at, updated_at: at })
        .execute();
    }
    const rows = await db.selectFrom('finding').select('id').orderBy('id').execute();
    for (const [i, { id }] of rows.entries())
      await store.findings.setStatus(id, statuses[i % statuses.length] ?? 'open');
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
    ['a search of two characters', () => ({ search: 'Pp' })],
    ['a search of one character', () => ({ search: '%' })],
    ['a search with a backslash', () => ({ search: 'k\\s' })],
    ['a search with _ where no target has one', () => ({ search: 'api_' })],
    ['a search that severities narrow', () => ({ search: 'example', severities: ['high', 'low'] })],
    ['a search that statuses narrow', () => ({ search: 'git', statuses: ['open', 'triaged'] })],
    ['the last week', () => ({ since: now - 7 * DAY })],
    ['an age ending in the last id bucket newer than it', () => ({ since: now - 29 * DAY - 1 })],
    [
      'an age 20 s before an id bucket, after a finding recorded 30 s before its id',
      () => ({ since: bucketStart - 20_000 }),
    ],
    [
      'an age 40 s before an id bucket, before that finding',
      () => ({ since: bucketStart - 40_000, statuses: ['open', 'fixed', 'triaged', 'false_positive'] }),
    ],
    [
      'an age by severity and status',
      () => ({ since: now - 12 * DAY, severities: ['high', 'info'], statuses: ['fixed', 'open'] }),
    ],
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

  it.each(filters)(
    'lists what %s selects the same whether a search reads its matches or walks every finding',
    async (_, filterOf) => {
      const filter = filterOf(scans);
      // Every search past a candidate limit of 0 walks the team's findings newest first.
      const walking = new FindingPages(store.connection, 0);
      for (const teamId of teams) {
        const want = expected(all, teamId, filter).map((f) => f.id);
        for (const [offset, limit] of [
          [0, 1000],
          [1, 2],
          [3, 4],
        ] as const) {
          const read = await store.findingPages.served(teamId, filter, { offset, limit });
          const walked = await walking.served(teamId, filter, { offset, limit });
          expect(read.findings.map((f) => f.id)).toEqual(want.slice(offset, offset + limit));
          expect(walked.findings.map((f) => f.id)).toEqual(want.slice(offset, offset + limit));
          expect([read.total, walked.total]).toEqual([want.length, want.length]);
        }
      }
    },
  );

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

describe.each(ENGINES)('deep pages of findings on $engine', ({ create }) => {
  // Enough that every filter below matches more than the offset where the counts take over.
  const ROWS = 18_000;
  let database: TestDatabase;
  let store: Store;
  let teamId = '';
  let rows: { id: string; severity: string; vuln_status: string }[] = [];

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    teamId = (await store.teams.ensure('deep')).id;
    const other = (await store.teams.ensure('other')).id;
    const scan = await store.scans.create({ teamId, name: 'deep', status: 'uploaded' });
    const otherScan = await store.scans.create({ teamId: other, name: 'other', status: 'uploaded' });
    const db = store.connection.db;
    const start = Date.UTC(2025, 0, 1);
    const values = Array.from({ length: ROWS }, (_, i) => {
      // Recorded over 20 days (about 13 id buckets), vuln ids made at that instant.
      const at = start + Math.floor((i * 20 * DAY) / ROWS);
      return {
        id: Xid.newWithTime(at / 1000).toString(),
        team_id: i % 10 === 9 ? other : teamId,
        scan_id: i % 10 === 9 ? otherScan.id : scan.id,
        vuln_hash: `hash ${i}`,
        vuln_status: 'open',
        severity: SEVERITIES[i % SEVERITIES.length] ?? 'info',
        template_id: 't',
        template_path: '',
        template_url: '',
        template_hash: null,
        target: `host${i % 7}.test`,
        event: '{}',
        created_at: at,
        updated_at: at,
      };
    });
    for (let i = 0; i < values.length; i += 500) {
      await db
        .insertInto('finding')
        .values(values.slice(i, i + 500))
        .execute();
    }
    // Triage moves findings between the counted statuses (one through the store, the rest at once).
    const fixed = values.filter((_, i) => i % 3 === 0).map((row) => row.id);
    await store.findings.setStatus(fixed[0] ?? '', 'fixed');
    for (let i = 0; i < fixed.length; i += 500) {
      await db
        .updateTable('finding')
        .set({ vuln_status: 'fixed' })
        .where('id', 'in', fixed.slice(i, i + 500))
        .execute();
    }
    // A status few findings have, far apart: a page of it spans most id buckets.
    const open = values.filter((row, i) => row.team_id === teamId && i % 3 !== 0);
    for (let i = 100; i < open.length; i += 2_500) await store.findings.setStatus(open[i]!.id, 'duplicate');
    rows = await db
      .selectFrom('finding')
      .select(['id', 'severity', 'vuln_status'])
      .where('team_id', '=', teamId)
      .orderBy('id', 'desc')
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it.each<[string, TeamFindingFilter]>([
    ['no filter', {}],
    ['a severity', { severities: ['high'] }],
    ['a status', { statuses: ['fixed'] }],
    ['both', { severities: ['critical', 'high'], statuses: ['open'] }],
  ])('pages past the counted offsets exactly as a plain walk, with %s', async (_, filter) => {
    const want = rows.filter(
      (r) =>
        ((filter.severities ?? []).length === 0 || filter.severities?.includes(r.severity as Severity)) &&
        ((filter.statuses ?? []).length === 0 || filter.statuses?.includes(r.vuln_status as VulnStatus)),
    );
    expect(want.length).toBeGreaterThan(2_200);
    for (const offset of [0, 1_999, 2_000, 2_001, 2_150, want.length - 7, want.length, want.length + 50]) {
      const page = await store.findingPages.list(teamId, filter, { offset, limit: 10 });
      expect(
        page.findings.map((f) => f.id),
        `offset ${offset}`,
      ).toEqual(want.slice(offset, offset + 10).map((r) => r.id));
      expect(page.total).toBe(want.length);
    }
  });

  it.each<[string, TeamFindingFilter]>([
    ['a status few findings have', { statuses: ['duplicate'] }],
    ['a status and a severity few findings have', { statuses: ['duplicate'], severities: ['low', 'info'] }],
    ['a status no finding has', { statuses: ['accepted_risk'] }],
  ])('pages through %s exactly as a plain walk', async (_, filter) => {
    const want = rows.filter(
      (r) =>
        ((filter.severities ?? []).length === 0 || filter.severities?.includes(r.severity as Severity)) &&
        filter.statuses?.includes(r.vuln_status as VulnStatus),
    );
    expect(want.length).toBeLessThan(10);
    for (const [offset, limit] of [
      [0, 100],
      [0, 1],
      [1, 2],
      [2, 3],
      [want.length - 1, 10],
      [want.length, 10],
    ] as const) {
      const page = await store.findingPages.list(teamId, filter, { offset, limit });
      expect(
        page.findings.map((f) => f.id),
        `offset ${offset}, limit ${limit}`,
      ).toEqual(want.slice(offset, offset + limit).map((r) => r.id));
      expect(page.total).toBe(want.length);
    }
  });

  it('counts a deleted scan’s findings out', async () => {
    const scan = await store.scans.create({ teamId, name: 'short-lived', status: 'uploaded' });
    await store.findings.addMany(scan.id, [event(0), event(1)]);
    expect((await store.findingPages.list(teamId, {}, { offset: 0, limit: 1 })).total).toBe(rows.length + 2);
    expect(await store.findingPages.count(teamId, { search: 'example' })).toBe(2);
    await store.scans.delete(scan.id, teamId);
    expect((await store.findingPages.list(teamId, {}, { offset: 0, limit: 1 })).total).toBe(rows.length);
    expect(await store.findingPages.count(teamId, { search: 'example' })).toBe(0);
  });
});
