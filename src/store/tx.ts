import { type Kysely, sql } from 'kysely';
import type { Connection } from './connect.js';
import type { Database } from './schema.js';

/**
 * Runs `work` in one write transaction and commits it: every write for a scan is durable when the
 * call returns. On SQLite the transaction starts with `BEGIN IMMEDIATE`, taking the write lock
 * first (waiting up to the busy timeout), so two processes writing at once queue instead of
 * failing on a stale read snapshot.
 */
export async function writeTransaction<T>(
  conn: Connection,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (conn.engine === 'postgres') return conn.db.transaction().execute(work);
  return conn.db.connection().execute(async (db) => {
    await sql`begin immediate`.execute(db);
    try {
      const result = await work(db);
      await sql`commit`.execute(db);
      return result;
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  });
}

/** Splits `items` into runs of at most `size`, for multi-row inserts within parameter limits. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Case-folds a name or a search term the same way, so search is case-insensitive on both engines. */
export function fold(text: string): string {
  return text.toLowerCase();
}
