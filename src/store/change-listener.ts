import pg from 'pg';
import type { ChangeCounter } from './changes.js';
import { CHANGE_CHANNEL } from './migrations.js';

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/**
 * One dedicated PostgreSQL connection that `LISTEN`s to the database's change channel (the
 * triggers of migration 0004 notify it after every statement that writes a table the API reads)
 * and calls `onChange` for each notification, and once each time it starts listening, since
 * anything may have changed while it was not. `listening` is false while it connects, after the
 * connection is lost and while it reconnects (with backoff, up to every 5 s): callers must not
 * rely on notifications then.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private connected = false;
  private started = false;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly onChange: () => void,
  ) {}

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
    client.on('notification', () => this.onChange());
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    this.connected = true;
    this.retryMs = FIRST_RETRY_MS;
    // Commits made before LISTEN took effect sent nothing to this connection.
    this.onChange();
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
  ) {}

  /**
   * The change counter's generation while changes are heard: equal generations then mean no
   * change. Undefined while the listener connects or reconnects, and once closed.
   */
  heardGeneration(): number | undefined {
    if (this.closed) return undefined;
    this.listener ??= new ChangeListener(this.url, () => this.counter.bump());
    this.listener.start();
    return this.listener.listening ? this.counter.generation : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.close();
  }
}
