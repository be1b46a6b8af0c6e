import { type ScratchDatabase, scratchPostgres, scratchSqlite } from '../scratch.js';

export type TestDatabase = ScratchDatabase;
export const sqliteTestDatabase = scratchSqlite;
export const postgresTestDatabase = scratchPostgres;

/** Both engines, for `describe.each`: the same suite runs on a real SQLite file and a real PostgreSQL. */
export const ENGINES = [
  { engine: 'sqlite', create: scratchSqlite },
  { engine: 'postgres', create: scratchPostgres },
] as const;
