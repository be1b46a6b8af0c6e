import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { type ReadAnswer, type ReadRequest, type ReadWorkerData, serveReads } from './read-worker.js';
import type { Database } from './schema.js';

/**
 * The store's reads of a SQLite file run on worker threads, each with its own read-only
 * connection, so that the main thread serialises and sends responses while a query runs: with
 * better-sqlite3 a query blocks the thread that runs it. In WAL mode each query reads the latest
 * committed data, so a read issued after a write committed on the main connection sees it.
 *
 * Kysely ships no dialect that runs queries on another thread, hence this one: SQLite's query
 * compiler, adapter and introspector, and a driver whose connection posts each query to a
 * thread and awaits its rows. Queries are not serialised behind a lock as on the main
 * connection: each thread runs those posted to it in order, while more wait in its queue.
 * Reads begin no transactions (a transaction needs all its queries on one connection).
 */
export class WorkerReadsDialect implements Dialect {
  constructor(private readonly reads: ReadThreads) {}

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new WorkerReadsDriver(this.reads);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

class WorkerReadsDriver implements Driver {
  private readonly connection: DatabaseConnection;

  constructor(private readonly reads: ReadThreads) {
    this.connection = {
      executeQuery: async <R>(query: CompiledQuery) => ({ rows: (await reads.query(query)) as R[] }),
      // biome-ignore lint/correctness/useYield: nothing to stream; it throws.
      streamQuery: async function* () {
        throw new Error('reads stream no queries');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error("reads run no transactions: begin one on the store's db");
  }

  async commitTransaction(): Promise<void> {
    throw new Error("reads run no transactions: begin one on the store's db");
  }

  async rollbackTransaction(): Promise<void> {
    throw new Error("reads run no transactions: begin one on the store's db");
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.reads.close();
  }
}

/** better-sqlite3's entry point, which read threads load by path (they have no module of ours to resolve it from). */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * What a read thread runs: {@link serveReads}'s text, given a `require` of its own (a thread
 * started with the process's options may evaluate its code as an ES module, without one).
 * Bundlers and test runners may wrap named functions in a `__name` helper, which the thread does
 * not have; it keeps the function as it is.
 */
export const READ_THREAD_SOURCE = `{
  const __name = (f) => f;
  const load = process.getBuiltinModule('node:module').createRequire(${JSON.stringify(DRIVER)});
  (${serveReads.toString()})(load);
}
`;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

/** A read thread and the queries posted to it, by id, not yet answered. */
interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Whether it answered a query: a thread that ends before its first answer could not start. */
  answered: boolean;
}

/**
 * Up to `size` read threads over the SQLite file at `path`, started as queries need them. Each
 * query goes to an idle thread, or the one with the fewest waiting: a long query holds up only
 * the queries that wait on its thread. A thread that ends (it failed, or was terminated) rejects
 * its waiting queries and is started again when needed; one that ends before it answered
 * anything could not start, and from then on `fallback` (the main connection) runs the reads.
 */
export class ReadThreads {
  private readonly threads: (Thread | undefined)[];
  private nextId = 0;
  /** Per list of result columns, the function that makes a row object of their values. */
  private readonly rowBuilders = new Map<string, (values: unknown[]) => unknown>();
  private closed = false;
  private failed = false;

  constructor(
    private readonly path: string,
    size: number,
    private readonly fallback: Kysely<Database>,
    /** The threads' code (tests give code that fails). */
    private readonly source = READ_THREAD_SOURCE,
  ) {
    this.threads = new Array(Math.max(1, size)).fill(undefined);
  }

  async query(query: CompiledQuery): Promise<unknown[]> {
    if (this.closed) throw new Error('the store is closed');
    if (this.failed) return (await this.fallback.executeQuery(query)).rows;
    const thread = this.pick();
    const id = this.nextId++;
    const request: ReadRequest = { id, sql: query.sql, parameters: query.parameters };
    return new Promise<unknown[]>((resolve, reject) => {
      // A thread with queries waiting keeps the process running; an idle one does not.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage(request);
    });
  }

  /** Ends the threads; queries still waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread?.worker.terminate()));
  }

  /**
   * An idle thread, else a new one while there is room, else the thread with the fewest queries
   * waiting: a second thread starts only when a query would wait behind another.
   */
  private pick(): Thread {
    let best: Thread | undefined;
    let empty = -1;
    for (let i = 0; i < this.threads.length; i++) {
      const thread = this.threads[i];
      if (thread === undefined) {
        if (empty < 0) empty = i;
      } else if (thread.pending.size === 0) {
        return thread;
      } else if (best === undefined || thread.pending.size < best.pending.size) {
        best = thread;
      }
    }
    return empty >= 0 ? this.start(empty) : best!;
  }

  /** An answer's rows as the objects better-sqlite3 would give, keyed by column name. */
  private rowsOf(answer: Exclude<ReadAnswer, { error: unknown }>): unknown[] {
    const key = answer.columns.join('\u0000');
    let build = this.rowBuilders.get(key);
    if (build === undefined) {
      build = rowBuilder(answer.columns);
      this.rowBuilders.set(key, build);
      if (this.rowBuilders.size > 500)
        this.rowBuilders.delete(this.rowBuilders.keys().next().value as string);
    }
    return answer.rows.map((values) => build(withBuffers(values)));
  }

  private start(index: number): Thread {
    const workerData: ReadWorkerData = { path: this.path, driver: DRIVER };
    const worker = new Worker(this.source, { eval: true, workerData });
    worker.unref();
    const thread: Thread = { worker, pending: new Map(), answered: false };
    worker.on('message', (answer: ReadAnswer) => {
      const pending = thread.pending.get(answer.id);
      if (pending === undefined) return;
      thread.pending.delete(answer.id);
      thread.answered = true;
      if (thread.pending.size === 0) worker.unref();
      if ('error' in answer) pending.reject(Object.assign(new Error(answer.error.message), answer.error));
      else pending.resolve(this.rowsOf(answer));
    });
    let failure: Error | undefined;
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', () => {
      if (this.threads[index] === thread) this.threads[index] = undefined;
      if (!thread.answered && !this.closed) this.failed = true;
      const reason = this.closed
        ? 'the store was closed'
        : `the store's read thread ended${failure === undefined ? '' : `: ${failure.message}`}`;
      for (const pending of thread.pending.values()) pending.reject(new Error(reason, { cause: failure }));
      thread.pending.clear();
    });
    this.threads[index] = thread;
    return thread;
  }
}

/** A row's blobs as the Buffers better-sqlite3 gives (a message brings them as Uint8Arrays). */
function withBuffers(values: unknown[]): unknown[] {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value instanceof Uint8Array && !Buffer.isBuffer(value))
      values[i] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return values;
}

/**
 * A function that makes a row object of an array of `columns`' values: an object literal with
 * the names written out, so that every row gets its shape at once rather than a property at a
 * time. A name repeated takes its last column's value, as better-sqlite3's objects do; the
 * names are JSON-quoted, and `__proto__` is computed so that it is a field, not the prototype.
 */
export function rowBuilder(columns: readonly string[]): (values: unknown[]) => unknown {
  const fields = columns.map((name, i) =>
    name === '__proto__' ? `["__proto__"]: values[${i}]` : `${JSON.stringify(name)}: values[${i}]`,
  );
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => unknown;
}
