import { type Kysely, type MigrationResult, Migrator, sql } from 'kysely';
import type { Engine } from './location.js';
import { LATEST_MIGRATION, migrations, SERVED_TEXTS_KEPT_INLINE } from './migrations.js';
import type { Database } from './schema.js';

const MIGRATION_TABLE = 'kysely_migration';

/** True when every migration has been applied; one cheap query, so every command can ask. */
export async function isSchemaCurrent(db: Kysely<Database>): Promise<boolean> {
  try {
    const row = await sql<{
      name: string;
    }>`select name from ${sql.table(MIGRATION_TABLE)} where name = ${LATEST_MIGRATION}`.execute(db);
    return row.rows.length > 0;
  } catch {
    return false;
  }
}

/** True when the database holds keyhole's schema, of any version; reads the catalog only. */
export async function hasSchema(db: Kysely<Database>, engine: Engine): Promise<boolean> {
  const found =
    engine === 'sqlite'
      ? await sql`select 1 from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)
      : await sql`select 1 where to_regclass(${MIGRATION_TABLE}) is not null`.execute(db);
  return found.rows.length > 0;
}

/**
 * Applies the pending migrations and returns their names. Safe when several processes start at
 * once: on PostgreSQL Kysely's migrator holds an advisory lock and runs each migration in a
 * transaction; on SQLite the whole run happens inside one `BEGIN IMMEDIATE` transaction, which
 * takes the write lock before reading what is applied.
 */
export async function migrateToLatest(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const provider = { getMigrations: async () => ({ ...migrations }) };
  const results =
    engine === 'postgres'
      ? await run(new Migrator({ db, provider }))
      : await db.connection().execute(async (conn) => {
          await sql`begin immediate`.execute(conn);
          try {
            const applied = await run(new Migrator({ db: conn, provider }));
            await sql`commit`.execute(conn);
            return applied;
          } catch (error) {
            await sql`rollback`.execute(conn);
            throw error;
          }
        });
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function run(migrator: Migrator): Promise<readonly MigrationResult[]> {
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      failed === undefined ? `migration failed: ${reason}` : `migration ${failed} failed: ${reason}`,
      {
        cause: error,
      },
    );
  }
  return results ?? [];
}

/**
 * What an operator should do by hand after `applied` (names of migrations just applied), as
 * sentences: rows that the migrations could not rewrite in their transaction and that are served
 * more slowly until they are. Empty when there is nothing to do.
 */
export async function adviceAfter(
  db: Kysely<Database>,
  engine: Engine,
  applied: readonly string[],
): Promise<string[]> {
  if (engine !== 'postgres' || !applied.includes(SERVED_TEXTS_KEPT_INLINE)) return [];
  const held = sql<{
    held: boolean;
  }>`select exists (select 1 from finding) or exists (select 1 from retest) as held`;
  if ((await held.execute(db)).rows[0]?.held !== true) return [];
  return [
    `findings and retest results recorded before ${SERVED_TEXTS_KEPT_INLINE} keep their texts apart from their rows, and their pages read more slowly, until the tables are rewritten: ` +
      'run `VACUUM FULL finding, retest;` then `VACUUM finding, retest;` in psql (VACUUM FULL locks both tables while it runs)',
  ];
}
