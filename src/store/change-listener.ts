import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { ChangeCounter } from './changes.js';
import { CHANGE_CHANNEL } from './migrations.js';
import type { Database } from './schema.js';

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;
/** How often a listener's heartbeat is announced, so it knows it still hears the channel. */
const HEARTBEAT_MS = 2_000;
/** A heartbeat's payload starts so; the triggers' notifications carry their table's name (none before 0027). */
const HEARTBEAT = 'keyhole-heartbeat ';

/**
 * One dedicated PostgreSQL connection that `LISTEN`s to the database's change channel (the
 * triggers of migration 0004 notify it after every statement that writes a table the API reads)
 * and calls `onChange` for each notification, with the table it names (0027), and once each time
 * it starts listening, naming none, since anything may have changed while it was not.
 *
 * It counts as listening only while it hears itself: after `LISTEN` a heartbeat of its own is
 * announced on the channel through another connection (`announce`), as a change would be, and
 * again every `heartbeatMs`; `listening` turns true when it hears the first, and the connection is
 * dropped and opened again when none was heard for three intervals. A connection that no longer
 * receives (a network gone silent, before TCP keepalive notices) or that never receives what
 * other connections announce (a pooler in transaction mode, which runs `LISTEN` on a server
 * connection the client does not keep) is thus not trusted to announce changes.
 * `listening` is false while it connects, until it hears itself, after the connection is lost
 * and while it reconnects (with backoff, up to every 5 s): callers must not rely on
 * notifications then. Heartbeats, its own and other processes', are not changes.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private connected = false;
  private started = false;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;
  private heartbeats: NodeJS.Timeout | undefined;
  /** This listener's heartbeats, told apart from other processes'. */
  private readonly self = `${HEARTBEAT}${randomUUID()}`;
  private lastHeard = 0;

  private readonly heartbeatMs: number;
  private readonly announce: (payload: string) => Promise<void>;

  constructor(
    private readonly url: string,
    private readonly onChange: (table?: string) => void,
    options: {
      /** Notifies the channel with `payload` through a connection other than the listener's. */
      readonly announce: (payload: string) => Promise<void>;
      readonly heartbeatMs?: number;
    },
  ) {
    this.announce = options.announce;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  get listening(): boolean {
    return this.connected;
  }

  /** Starts listening in the background; later calls do nothing. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.drop();
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'keyhole-listen',
      connectionTimeoutMillis: 5_000,
      // A peer that vanishes without closing the socket is noticed by TCP keepalive.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    // Registered before connecting: an 'error' event without a listener would end the process.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.heard(client, message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    this.lastHeard = Date.now();
    this.heartbeats = setInterval(() => this.beat(client), this.heartbeatMs);
    this.heartbeats.unref();
    this.beat(client);
  }

  private heard(client: pg.Client, payload: string): void {
    if (this.client !== client) return;
    if (!payload.startsWith(HEARTBEAT)) {
      this.onChange(payload);
      return;
    }
    if (payload !== this.self) return;
    this.lastHeard = Date.now();
    if (this.connected) return;
    this.connected = true;
    this.retryMs = FIRST_RETRY_MS;
    // Commits made before LISTEN took effect, or while it was not heard, sent nothing here.
    this.onChange();
  }

  /** Announces a heartbeat, or drops a connection that has heard none for three intervals. */
  private beat(client: pg.Client): void {
    if (this.client !== client) return;
    if (Date.now() - this.lastHeard > 3 * this.heartbeatMs) {
      this.lost(client);
      return;
    }
    // Not announced (the store unreachable): unheard, it is the listener's loss in turn.
    this.announce(this.self).catch(() => undefined);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.drop();
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
  }

  private drop(): void {
    clearInterval(this.heartbeats);
    this.heartbeats = undefined;
    this.client = undefined;
    this.connected = false;
  }
}

/**
 * What this process hears of changes to a PostgreSQL store: a {@link ChangeListener} that bumps
 * `counter` at each announced change, started by the first question, so a process that never
 * asks opens no connection for it.
 */
export class ChangeWatch {
  private listener: ChangeListener | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly counter: ChangeCounter,
    /** The store's connections, which announce the listener's heartbeats. */
    private readonly db: Kysely<Database>,
  ) {}

  /**
   * The change counter's generation (of `tables` only, when given) while changes are heard: equal
   * generations then mean no change. Undefined while the listener connects or reconnects, and
   * once closed.
   */
  heardGeneration(tables?: readonly string[]): number | undefined {
    if (this.closed) return undefined;
    this.listener ??= new ChangeListener(this.url, (table) => this.counter.bump(table), {
      announce: async (payload) => {
        await sql`select pg_notify(${CHANGE_CHANNEL}, ${payload})`.execute(this.db);
      },
    });
    this.listener.start();
    if (!this.listener.listening) return undefined;
    return tables === undefined ? this.counter.generation : this.counter.generationOf(tables);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.close();
  }
}
