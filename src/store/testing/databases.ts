import { existsSync } from 'node:fs';
import pg from 'pg';
import type { StoreLocation } from '../location.js';
import { type ScratchDatabase, scratchPostgres, scratchSqlite } from './scratch.js';

export type TestDatabase = ScratchDatabase;
export const sqliteTestDatabase = scratchSqlite;
export const postgresTestDatabase = scratchPostgres;

/** Both engines, for `describe.each`: the same suite runs on a real SQLite file and a real PostgreSQL. */
export const ENGINES = [
  { engine: 'sqlite', create: scratchSqlite },
  { engine: 'postgres', create: scratchPostgres },
] as const;

/**
 * What a database holds, to show that something created nothing: the names of its tables
 * (PostgreSQL), or whether its file exists (SQLite).
 */
export async function tablesOf(location: StoreLocation): Promise<string[]> {
  if (location.engine === 'sqlite') return existsSync(location.path) ? [`the file ${location.path}`] : [];
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    const result = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    return result.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}
