import type SqliteDatabase from 'better-sqlite3';

/**
 * Whether a SQLite file's data may have changed, as its main connection tells: `data_version`
 * moves with every commit by another connection (another process, or this one's read threads
 * never write), `total_changes()` with every row this connection writes.
 *
 * While that connection is inside a transaction there is no token: `total_changes()` has moved
 * with rows not yet committed, which the read threads do not see, and it does not move again at
 * the commit. What was read then and kept under that token would be kept after the commit, older
 * than the data (a page without the write, a revoked key still accepted). A transaction spans
 * awaits (Kysely runs its statements one at a time), so requests are answered meanwhile.
 */
export class SqliteChanges {
  private readonly statement: { get(): unknown };
  private lastToken: string | undefined;
  private generationNumber = 0;

  constructor(private readonly sqlite: SqliteDatabase.Database) {
    this.statement = sqlite
      .prepare("select (select data_version from pragma_data_version()) || '.' || total_changes()")
      .pluck();
  }

  /** The token of the data as of this call; undefined while the main connection is in a transaction. */
  token(): string | undefined {
    if (this.sqlite.inTransaction) return undefined;
    return String(this.statement.get());
  }

  /**
   * A number that grows whenever {@link token} moves (see `KeptCounts`); undefined while the main
   * connection is in a transaction, when nothing is kept.
   */
  generation(): number | undefined {
    const token = this.token();
    if (token === undefined) return undefined;
    if (token !== this.lastToken) {
      this.lastToken = token;
      this.generationNumber++;
    }
    return this.generationNumber;
  }
}
