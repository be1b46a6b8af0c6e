import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * A number that grows whenever the data may have changed: after each write this process commits
 * (bumped by {@link ChangeCountingDialect}) and each change another connection announces (bumped
 * by the change listener). Equal generations, while the listener is connected, mean no change.
 *
 * A change announced with its table (migration 0027) also moves that table's own number, so what
 * is read from some tables only is kept across changes to others (a listing of retest results
 * while scans record their progress); a change that names no table (this process's own commits,
 * the listener starting again, triggers older than 0027) moves every table's.
 */
export class ChangeCounter {
  private value = 0;
  private everyTable = 0;
  private readonly ofTable = new Map<string, number>();

  get generation(): number {
    return this.value;
  }

  /** A change to `table`, or to any table when it names none. */
  bump(table?: string): void {
    this.value++;
    if (table === undefined || table === '') this.everyTable++;
    else this.ofTable.set(table, (this.ofTable.get(table) ?? 0) + 1);
  }

  /** A number that grows with every change to one of `tables`: equal numbers mean none changed. */
  generationOf(tables: readonly string[]): number {
    let generation = this.everyTable;
    for (const table of tables) generation += this.ofTable.get(table) ?? 0;
    return generation;
  }
}

/**
 * A dialect that bumps `counter` once a write this process made is committed: after a write
 * statement outside a transaction, after the commit of a transaction that wrote (a rollback
 * changes nothing). A read-your-writes guarantee within the process, before the database's
 * change notification arrives.
 */
export class ChangeCountingDialect implements Dialect {
  constructor(
    private readonly inner: Dialect,
    private readonly counter: ChangeCounter,
  ) {}

  createDriver(): Driver {
    return new ChangeCountingDriver(this.inner.createDriver(), this.counter);
  }

  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: the introspector works on any schema.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}

/** Reads never change data; anything else (writes, DDL, raw statements) is counted as a change. */
function isRead(query: CompiledQuery): boolean {
  return /^\s*select\b/i.test(query.sql);
}

class CountedConnection implements DatabaseConnection {
  inTransaction = false;
  wrote = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly counter: ChangeCounter,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isRead(query)) return this.inner.executeQuery<R>(query);
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      // Even a failed statement: a lost connection may hide a statement that did run.
      if (this.inTransaction) this.wrote = true;
      else this.counter.bump();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class ChangeCountingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly counter: ChangeCounter,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new CountedConnection(await this.inner.acquireConnection(), this.counter);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const counted = connection as CountedConnection;
    await this.inner.beginTransaction(counted.inner, settings);
    counted.inTransaction = true;
    counted.wrote = false;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const counted = connection as CountedConnection;
    try {
      await this.inner.commitTransaction(counted.inner);
    } finally {
      // A commit that failed in flight may still have happened: count it.
      if (counted.wrote) this.counter.bump();
      counted.inTransaction = false;
      counted.wrote = false;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const counted = connection as CountedConnection;
    try {
      await this.inner.rollbackTransaction(counted.inner);
    } finally {
      counted.inTransaction = false;
      counted.wrote = false;
    }
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ): Promise<void> {
    await this.inner.savepoint?.((connection as CountedConnection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.((connection as CountedConnection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.((connection as CountedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as CountedConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
