import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUCKET_MS, bucketOf, locate, SPAN_MS } from './buckets.js';
import { newId } from './id.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';
import { insertRetests } from './testing/retest-rows.js';
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
    await insertRetests(store.connection.db, { team, scanId: scan.id, findingId: finding.id }, times);

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

  it('finds deep pages across a year of spans, with the span sums kept as days change', async () => {
    const team = (await store.teams.ensure('spans')).id;
    const start = Date.UTC(2023, 0, 1);
    const statuses = ['finished', 'failed', 'running'] as const;
    // 4,000 scans over about a year, sparse at first and dense at the end.
    const scans = Array.from({ length: 4000 }, (_, i) => ({
      id: newId(),
      at: start + Math.floor((i * i) / 30) * 60_000 + (i % 2),
      status: statuses[(i * 5) % 3]!,
    }));
    for (const part of chunks(scans, 500)) {
      await store.connection.db
        .insertInto('scan')
        .values(
          part.map(({ id, at, status }) => ({
            id,
            team_id: team,
            name: id,
            name_folded: id,
            status,
            created_at: at,
            updated_at: at,
          })) as never,
        )
        .execute();
    }
    await sql`insert into scan_bucket (team_id, bucket, n)
      select team_id, (created_at / 86400000) * 86400000, count(*) from scan where team_id = ${team}
      group by team_id, (created_at / 86400000) * 86400000`.execute(store.connection.db);
    // Counts change after: statuses (0008's triggers), scans deleted (the code's counts).
    await store.connection.db
      .updateTable('scan')
      .set({ status: 'finished' })
      .where(
        'id',
        'in',
        scans.filter((_, i) => i % 7 === 0).map((s) => s.id),
      )
      .execute();
    // Running scans cannot be deleted.
    const deleted = (i: number) => i % 97 === 0 && (i % 7 === 0 || scans[i]!.status !== 'running');
    for (const { id } of scans.filter((_, i) => deleted(i))) await store.scans.delete(id, team);

    if (store.connection.engine === 'sqlite') {
      const recount = (table: string, keys: string) =>
        sql<{ key: string; span: number; n: number }>`select ${sql.raw(keys)} as key,
          bucket - ((bucket % ${SPAN_MS}) + ${SPAN_MS}) % ${SPAN_MS} as span, sum(n) as n
          from ${sql.table(table)} where team_id = ${team} group by 1, 2 having sum(n) > 0 order by 1, 2`.execute(
          store.connection.db,
        );
      const kept = (table: string, keys: string) =>
        sql<{ key: string; span: number; n: number }>`select ${sql.raw(keys)} as key, span, n
          from ${sql.table(table)} where team_id = ${team} and n > 0 order by 1, 2`.execute(
          store.connection.db,
        );
      for (const [days, spans, keys] of [
        ['scan_bucket', 'scan_bucket_span', 'team_id'],
        ['scan_status_bucket', 'scan_status_bucket_span', 'status'],
      ]) {
        const expected = (await recount(days!, keys!)).rows.map((r) => [r.key, Number(r.span), Number(r.n)]);
        expect((await kept(spans!, keys!)).rows.map((r) => [r.key, Number(r.span), Number(r.n)])).toEqual(
          expected,
        );
        expect(expected.length).toBeGreaterThan(10);
      }
    }

    const remaining = scans
      .filter((_, i) => !deleted(i))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
    // Offsets on each side of every span's first row, newest first, and of the last row.
    const offsets = new Set([2000, 2001, remaining.length - 1, remaining.length, remaining.length + 5]);
    remaining.forEach((scan, i) => {
      const next = remaining[i + 1];
      if (i >= 2001 && next !== undefined && Math.floor(scan.at / SPAN_MS) !== Math.floor(next.at / SPAN_MS))
        for (const offset of [i - 1, i, i + 1]) offsets.add(offset);
    });
    for (const filter of [undefined, ['finished'], ['failed', 'running']] as const) {
      for (const offset of offsets) {
        let expected = store.connection.db
          .selectFrom('scan')
          .select('id')
          .where('team_id', '=', team)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(50)
          .offset(offset);
        if (filter !== undefined) expected = expected.where('status', 'in', filter);
        const page = await store.scans.list(team, {
          offset,
          limit: 50,
          ...(filter === undefined ? {} : { statuses: filter }),
        });
        expect(
          page.map((r) => r.id),
          `${filter?.join(',') ?? 'all'} offset ${offset}`,
        ).toEqual((await expected.execute()).map((r) => r.id));
      }
    }
  });

  it('finds the day through every day when a span sum is ahead of its days (rows deleted between the reads)', async () => {
    if (store.connection.engine !== 'sqlite') return;
    const team = (await store.teams.ensure('race')).id;
    const start = Date.UTC(2024, 5, 1);
    await store.connection.db
      .insertInto('retest_bucket')
      .values(
        Array.from({ length: 70 }, (_, day) => ({ team_id: team, bucket: start + day * BUCKET_MS, n: 10 })),
      )
      .execute();
    const conn = { engine: store.connection.engine, db: store.connection.db };
    /** The day of the row at `offset`, newest first, ten rows a day. */
    const dayOf = (offset: number) => {
      const day = 69 - Math.floor(offset / 10);
      return { before: start + (day + 1) * BUCKET_MS, skip: offset % 10 };
    };
    // The newest span claims 100 more rows than its days hold, as if they were deleted meanwhile.
    const newest = Math.floor((start + 69 * BUCKET_MS) / SPAN_MS) * SPAN_MS;
    await sql`update retest_bucket_span set n = n + 100 where team_id = ${team} and span = ${newest}`.execute(
      store.connection.db,
    );
    const held = ((start + 69 * BUCKET_MS - newest) / BUCKET_MS + 1) * 10;
    // Past its days and within its claim: the span's days cannot hold it, every day does.
    for (const offset of [0, 25, held - 1, held, held + 55, held + 99]) {
      expect(await locate(conn, team, offset, { table: 'retest_bucket' }), `offset ${offset}`).toEqual(
        dayOf(offset),
      );
    }
  });
});
