/**
 * The body of a read thread (see reads.ts): it opens its own read-only connection to a SQLite
 * file and answers each query posted to it with the rows, one query at a time, in the order
 * posted.
 *
 * The thread runs the text of {@link serveReads}, not this module: a `Worker` cannot load a
 * TypeScript source (the tests run the sources), and the text needs no file beside the built
 * module. It must therefore reference nothing outside itself, and loads only `node:worker_threads`
 * and better-sqlite3 (by the path the main thread resolved): never modules that load the `re2`
 * addon, which ends the process when a second thread loads it.
 */
import type SqliteDatabase from 'better-sqlite3';

/** What the main thread gives a read thread. */
export interface ReadWorkerData {
  /** The SQLite file. */
  readonly path: string;
  /** better-sqlite3's entry point, resolved from the main thread's module. */
  readonly driver: string;
}

/** A query posted to a read thread. */
export interface ReadRequest {
  readonly id: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * A read thread's answer: the rows as arrays of column values (in `columns`' order), or the
 * error's name, message and SQLite code.
 */
export type ReadAnswer =
  | { readonly id: number; readonly columns: readonly string[]; readonly rows: unknown[][] }
  | {
      readonly id: number;
      readonly error: { readonly name: string; readonly message: string; readonly code?: unknown };
    };

export function serveReads(require: NodeJS.Require): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { path, driver } = workerData as ReadWorkerData;
  const Database = require(driver) as typeof SqliteDatabase;
  const port = parentPort!;
  let db: SqliteDatabase.Database | undefined;
  let opening: unknown;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5_000 });
    // As the main connection's (see connect.ts): the file mapped, the listing indexes cached.
    db.pragma('mmap_size = 1073741824');
    db.pragma('cache_size = -65536');
  } catch (error) {
    // Every query answers why the file could not be opened.
    opening = error;
  }
  // Statements by their text, as the main connection's statement cache keeps them, with the
  // names of their result columns.
  const statements = new Map<string, { statement: SqliteDatabase.Statement; columns: string[] }>();
  port.on('message', ({ id, sql, parameters }: ReadRequest) => {
    try {
      if (db === undefined) throw opening;
      let prepared = statements.get(sql);
      if (prepared === undefined) {
        const statement = db.prepare(sql);
        // A statement that returns no rows could begin a transaction the next query does not
        // belong to, or write: reads are queries only.
        if (!statement.reader) throw new Error(`reads run only queries that return rows, not: ${sql}`);
        // Rows as arrays: better-sqlite3 builds a row object a property at a time, and a cloned
        // object is rebuilt so on the main thread again; arrays of values cost far less to build,
        // send and receive (JSON text would cost more: it escapes the stored JSON texts).
        statement.raw(true);
        prepared = { statement, columns: statement.columns().map((column) => column.name) };
        statements.set(sql, prepared);
        if (statements.size > 500) statements.delete(statements.keys().next().value as string);
      }
      const { statement, columns } = prepared;
      port.postMessage({ id, columns, rows: statement.all(parameters) as unknown[][] } satisfies ReadAnswer);
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      const { code } = error as { code?: unknown };
      port.postMessage({
        id,
        error: { name: error.name, message: error.message, code },
      } satisfies ReadAnswer);
    }
  });
}
