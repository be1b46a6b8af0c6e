import { availableParallelism } from 'node:os';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, connect } from './connect.js';
import type { Database } from './schema.js';
import { postgresTestDatabase, type TestDatabase } from './testing/databases.js';

/** The PostgreSQL backends that `burst` statements sent at once on `db` ran on. */
async function backendsOf(db: Kysely<Database>, burst = 24): Promise<Set<number>> {
  const runs = Array.from({ length: burst }, () =>
    sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.02)`.execute(db),
  );
  return new Set((await Promise.all(runs)).map((result) => Number(result.rows[0]?.pid)));
}

async function close(conn: Connection): Promise<void> {
  if (conn.engine !== 'postgres') return;
  await conn.readsPlannedOnce.destroy();
  await conn.reads.destroy();
  await conn.db.destroy();
}

describe('the connections of the listing pools on PostgreSQL', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await postgresTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('open at most readConnections each, however many listings run at once', async () => {
    const conn = connect(database.location, { readConnections: 2 });
    try {
      expect((await backendsOf(conn.reads)).size).toBe(2);
      expect((await backendsOf(conn.readsPlannedOnce)).size).toBe(2);
    } finally {
      await close(conn);
    }
  });

  it('open as many as readConnections allows when listings wait for them', async () => {
    const conn = connect(database.location, { readConnections: 6 });
    try {
      expect((await backendsOf(conn.reads)).size).toBe(6);
    } finally {
      await close(conn);
    }
  });

  it("default to this machine's cores, from 2 to 10", async () => {
    const conn = connect(database.location);
    try {
      expect((await backendsOf(conn.reads)).size).toBe(Math.min(10, Math.max(2, availableParallelism())));
    } finally {
      await close(conn);
    }
  });

  it('leave the pool for writes its own size', async () => {
    const conn = connect(database.location, { readConnections: 2, poolSize: 5 });
    try {
      expect((await backendsOf(conn.db)).size).toBe(5);
    } finally {
      await close(conn);
    }
  });
});
