import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { openStore, type Store } from './store.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';

/**
 * A result whose request and response are incompressible (random hex): its event and its served
 * texts each take more than a quarter of a page, so PostgreSQL must move some of the row's values
 * out of it. Since migration 0028 that is the events alone.
 */
function largeEvent(bytes = 700): ResultEvent {
  return {
    'template-id': 'exposed-config',
    info: { name: 'Exposed configuration', author: [], tags: [], severity: 'high' },
    type: 'http',
    host: 'app.example.test',
    'matched-at': 'https://app.example.test/.env',
    request: `GET /.env HTTP/1.1\r\nX-Trace: ${randomBytes(bytes).toString('hex')}\r\n\r\n`,
    response: `HTTP/1.1 200 OK\r\n\r\n${randomBytes(bytes).toString('hex')}`,
    timestamp: '2024-03-14T10:21:36.884Z',
    'matcher-status': true,
  };
}

describe('served texts on PostgreSQL', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    store = await openStore(database.location);
    const team = await store.teams.ensure('storage');
    const scan = await store.scans.create({ teamId: team.id, name: 'storage', status: 'uploaded' });
    await store.findings.addMany(scan.id, [largeEvent()]);
    const finding = await store.connection.db.selectFrom('finding').select('id').executeTakeFirstOrThrow();
    await store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [largeEvent()] });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** The values of `table`'s rows kept out of them, in its TOAST table. */
  async function valuesOutOfRow(table: 'finding' | 'retest'): Promise<number> {
    const db = store.connection.db;
    const { rows } = await sql<{ toast: string }>`select reltoastrelid::regclass::text as toast
      from pg_class where oid = ${table}::regclass`.execute(db);
    const toast = rows[0]?.toast ?? '';
    const counted = await sql<{
      n: string;
    }>`select count(distinct chunk_id) as n from ${sql.raw(toast)}`.execute(db);
    return Number(counted.rows[0]?.n);
  }

  it.each([
    ['finding', 'event'],
    ['retest', 'events'],
  ] as const)('keeps a large %s’s served fields in its row, and its %s out of it', async (table, events) => {
    const row = await store.connection.db
      .selectFrom(table)
      .select([
        sql<number>`octet_length(served_fields)`.as('fields'),
        sql<number>`octet_length(${sql.ref(events)})`.as('events'),
      ])
      .executeTakeFirstOrThrow();
    // Each more than a quarter of a page: they cannot all stay in the row.
    expect(row.fields).toBeGreaterThan(2_048);
    expect(row.events).toBeGreaterThan(2_048);
    // A finding's served head and its short texts (`vuln_hash`, …) stay in the row too.
    expect(await valuesOutOfRow(table)).toBe(1);
  });

  it('records a finding too large for a page, its served texts then moved out of the row', async () => {
    const team = await store.teams.ensure('huge');
    const scan = await store.scans.create({ teamId: team.id, name: 'huge', status: 'uploaded' });
    const event = largeEvent(20_000);
    const before = await valuesOutOfRow('finding');
    await store.findings.addMany(scan.id, [event]);
    // Its event, and its served fields: alone they are larger than a page.
    expect((await valuesOutOfRow('finding')) - before).toBe(2);
    const page = await store.findingPages.list(team.id, {}, { offset: 0, limit: 10 });
    expect(page.findings.map((f) => f.event.response)).toEqual([event.response]);
  });
});
