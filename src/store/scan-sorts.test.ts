import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scan } from './model.js';
import type { ScanSortField } from './scans.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

type Sort = { field: ScanSortField; direction: 'asc' | 'desc' }[];

/** The order a sort must give, decided over every scan without the store's queries. */
function sorted(scans: readonly Scan[], sort: Sort): string[] {
  const value = (scan: Scan, field: ScanSortField): number | string =>
    ({
      progress: scan.progress,
      total_target: scan.totalTarget,
      updated_at: scan.updatedAt,
      status: scan.status,
    })[field as 'progress'] ?? scan.name.toLowerCase();
  const compare = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...scans]
    .sort((a, b) => {
      for (const { field, direction } of sort) {
        const order = compare(value(a, field), value(b, field));
        if (order !== 0) return direction === 'asc' ? order : -order;
      }
      return -compare(a.createdAt, b.createdAt) || -compare(a.id, b.id);
    })
    .map((scan) => scan.id);
}

describe.each(ENGINES)('scan listings sorted by several fields on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let teamId = '';
  let all: Scan[] = [];

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    teamId = (await store.teams.ensure('sorts')).id;
    const db = store.connection.db;
    for (let i = 0; i < 60; i++) {
      const scan = await store.scans.create({ teamId, name: `Scan ${i % 9}`, status: 'uploaded' });
      // Few distinct values, so every field has ties the next one breaks.
      await db
        .updateTable('scan')
        .set({
          progress: (i * 7) % 5,
          total_target: (i * 3) % 4,
          updated_at: 1_000 + (i % 6),
          created_at: 500 + (i % 13),
        })
        .where('id', '=', scan.id)
        .execute();
    }
    all = await store.scans.list(teamId, { offset: 0, limit: 1000 });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it.each<[string, Sort]>([
    [
      'progress desc, total_target asc',
      [
        { field: 'progress', direction: 'desc' },
        { field: 'total_target', direction: 'asc' },
      ],
    ],
    [
      'updated_at desc, total_target desc',
      [
        { field: 'updated_at', direction: 'desc' },
        { field: 'total_target', direction: 'desc' },
      ],
    ],
    [
      'name asc, progress desc',
      [
        { field: 'name', direction: 'asc' },
        { field: 'progress', direction: 'desc' },
      ],
    ],
    [
      'total_target asc, updated_at asc, progress desc',
      [
        { field: 'total_target', direction: 'asc' },
        { field: 'updated_at', direction: 'asc' },
        { field: 'progress', direction: 'desc' },
      ],
    ],
  ])('pages by %s exactly as sorting every scan does', async (_, sort) => {
    const want = sorted(all, sort);
    for (const [offset, limit] of [
      [0, 10],
      [7, 5],
      [23, 20],
      [55, 10],
      [60, 5],
      [90, 10],
    ] as const) {
      const page = await store.scans.list(teamId, { offset, limit, sort });
      expect(
        page.map((s) => s.id),
        `offset ${offset}`,
      ).toEqual(want.slice(offset, offset + limit));
    }
  });
});
