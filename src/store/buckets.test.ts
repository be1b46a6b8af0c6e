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
});
