import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUCKET_MS, bucketOf } from './buckets.js';
import { newId } from './id.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';
import { chunks } from './tx.js';

describe.each(ENGINES)('deep pages on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps daily counts of scans and retests as they are created', async () => {
    const team = (await store.teams.ensure('counted')).id;
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2024, 2, 14, 23, 59, 0);
    for (let i = 0; i < 6; i++) {
      vi.setSystemTime(start + i * 12 * 3_600_000);
      const scan = await store.scans.create({ teamId: team, name: `scan ${i}` });
      await store.scans.markRunning(scan.id);
      const { finding } = await store.findings.add(scan.id, {
        'template-id': 't',
        info: { author: null, tags: null, severity: 'low' },
        type: 'http',
        'matched-at': `https://a.test/${i}`,
        timestamp: '2024-03-14T10:00:00Z',
        'matcher-status': true,
      });
      await store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [] });
    }
    for (const table of ['scan_bucket', 'retest_bucket'] as const) {
      const rows = await store.connection.db
        .selectFrom(table)
        .select(['bucket', 'n'])
        .where('team_id', '=', team)
        .orderBy('bucket')
        .execute();
      expect(rows).toEqual([
        { bucket: bucketOf(start), n: 1 },
        { bucket: bucketOf(start) + BUCKET_MS, n: 2 },
        { bucket: bucketOf(start) + 2 * BUCKET_MS, n: 2 },
        { bucket: bucketOf(start) + 3 * BUCKET_MS, n: 1 },
      ]);
    }
  });

  it('returns exactly the rows a plain OFFSET returns, at every depth', async () => {
    const team = (await store.teams.ensure('deep')).id;
    const start = Date.UTC(2024, 0, 1);
    // 3,000 retests over ~40 days, several sharing a millisecond, uneven per day.
    const times = Array.from(
      { length: 3000 },
      (_, i) => start + Math.floor((i * i) / 220) * 24_000 + (i % 3),
    );
    const scan = await store.scans.create({ teamId: team, name: 'deep' });
    await store.scans.markRunning(scan.id);
    const { finding } = await store.findings.add(scan.id, {
      'template-id': 't',
      info: { author: null, tags: null, severity: 'low' },
      type: 'http',
      'matched-at': 'https://a.test/',
      timestamp: '2024-03-14T10:00:00Z',
      'matcher-status': true,
    });
    for (const part of chunks(times, 500)) {
      await store.connection.db
        .insertInto('retest')
        .values(
          part.map((at) => ({
            id: newId(),
            team_id: team,
            finding_id: finding.id,
            scan_id: scan.id,
            target: 'a.test',
            template_id: 't',
            template_path: '',
            template_url: '',
            template_hash: null,
            matcher_status: 1 as const,
            result_type: 'matched',
            vuln_status: 'open',
            events: '[]',
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
    }
    await sql`insert into retest_bucket (team_id, bucket, n)
      select team_id, (created_at / 86400000) * 86400000, count(*) from retest where team_id = ${team}
      group by team_id, (created_at / 86400000) * 86400000`.execute(store.connection.db);

    for (const offset of [1999, 2000, 2001, 2345, 2900, 2950, 2999, 3000, 5000]) {
      const expected = await store.connection.db
        .selectFrom('retest')
        .select('id')
        .where('team_id', '=', team)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(100)
        .offset(offset)
        .execute();
      const page = await store.retests.list(team, { offset, limit: 100 });
      expect(
        page.map((r) => r.id),
        `offset ${offset}`,
      ).toEqual(expected.map((r) => r.id));
    }
  });

  it('lists scans filtered by status at every depth as a plain OFFSET does, with the counts kept as statuses change', async () => {
    const team = (await store.teams.ensure('statuses')).id;
    const start = Date.UTC(2024, 0, 1);
    const statuses = ['finished', 'failed', 'running', 'uploaded'] as const;
    const ids: string[] = [];
    for (const part of chunks(
      Array.from({ length: 6000 }, (_, i) => i),
      1000,
    )) {
      await store.connection.db
        .insertInto('scan')
        .values(
          part.map((i) => {
            const id = newId();
            ids.push(id);
            const at = start + Math.floor((i * i) / 220) * 24_000 + (i % 3);
            const status = statuses[(i * 7) % 4]!;
            return {
              id,
              team_id: team,
              name: `s${i}`,
              name_folded: `s${i}`,
              status,
              created_at: at,
              updated_at: at,
            };
            // The other columns have their defaults.
          }) as never,
        )
        .execute();
    }
    // Statuses change after creation (a running scan finishes) and scans go: the triggers follow.
    await store.connection.db
      .updateTable('scan')
      .set({ status: 'finished' })
      .where(
        'id',
        'in',
        ids.filter((_, i) => i % 5 === 0),
      )
      .execute();
    await store.connection.db.updateTable('scan').set({ progress: 7 }).where('team_id', '=', team).execute();
    await store.connection.db
      .deleteFrom('scan')
      .where(
        'id',
        'in',
        ids.filter((_, i) => i % 11 === 0),
      )
      .execute();
    const counted = await store.connection.db
      .selectFrom('scan_status_bucket')
      .select(['status', 'bucket', 'n'])
      .where('team_id', '=', team)
      .where('n', '>', 0)
      .orderBy('status')
      .orderBy('bucket')
      .execute();
    const recount = await sql<{ status: string; bucket: number; n: number }>`
      select status, (created_at / 86400000) * 86400000 as bucket, count(*) as n from scan
      where team_id = ${team} group by status, (created_at / 86400000) * 86400000 order by status, bucket`.execute(
      store.connection.db,
    );
    expect(counted.map((r) => [r.status, Number(r.bucket), Number(r.n)])).toEqual(
      recount.rows.map((r) => [r.status, Number(r.bucket), Number(r.n)]),
    );

    for (const filter of [['finished'], ['failed', 'running'], ['queued']] as const) {
      for (const offset of [0, 1999, 2000, 2001, 2100, 2150, 2400, 5000]) {
        const expected = await store.connection.db
          .selectFrom('scan')
          .select('id')
          .where('team_id', '=', team)
          .where('status', 'in', filter)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(100)
          .offset(offset)
          .execute();
        const page = await store.scans.list(team, { offset, limit: 100, statuses: filter });
        expect(
          page.map((r) => r.id),
          `${filter.join(',')} offset ${offset}`,
        ).toEqual(expected.map((r) => r.id));
      }
    }
  });
});
