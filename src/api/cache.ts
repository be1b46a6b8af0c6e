import { gzipPage } from './encoding.js';

/** A rendered page: its JSON bytes, and whether it shows values that change with time alone. */
export interface RenderedPage {
  readonly body: Buffer;
  /** True when the page shows a running scan's elapsed time, which grows while the data stay equal. */
  readonly live: boolean;
}

/** A page as served: its bytes, and whether they were kept or being rendered by another request. */
export interface ServedPage {
  readonly body: Buffer;
  readonly hit: boolean;
  /** The same bytes gzipped (undefined for pages too small to compress), made once for the page. */
  gzipped(): Promise<Buffer | undefined>;
}

/**
 * A page kept. Its gzip is made when a client that accepts gzip first asks for it, not with the
 * rendering: most pages of a mix of distinct queries are never asked for again, and compressing
 * each as it was rendered cost more than the cache saved (measured: on SQLite the mix served 1,288
 * requests/s with the cache against 1,878 without).
 */
class Entry {
  private gzip: Promise<Buffer | undefined> | undefined;
  /** The bytes it holds: its body, and its gzip once made. */
  bytes: number;

  constructor(
    readonly key: string,
    readonly body: Buffer,
    readonly live: boolean,
    readonly at: number,
    private readonly compress: (body: Buffer) => Promise<Buffer | undefined>,
    private readonly onCompressed: (entry: Entry, bytes: number) => void,
  ) {
    this.bytes = body.length;
  }

  gzipped(): Promise<Buffer | undefined> {
    this.gzip ??= this.compress(this.body).then((gzip) => {
      if (gzip !== undefined) {
        this.bytes += gzip.length;
        this.onCompressed(this, gzip.length);
      }
      return gzip;
    });
    return this.gzip;
  }
}

/**
 * Rendered `/v1` pages, kept as the bytes sent (identity, and gzip once asked for) while the store's data is unchanged: a page is
 * served again only for the same team, the same URL and the same store change token (equal
 * tokens mean identical data, see `Store.changeToken`). A page that shows live values (a
 * running scan's elapsed time) is served for at most `liveMs` so they stay fresh.
 *
 * Requests for the same page under the same token share one rendering: when a page expires
 * under load, one request reads the store and the others wait for its bytes instead of each
 * reading the same rows again.
 */
export class PageCache {
  private token = '';
  private readonly pages = new Map<string, Entry>();
  private readonly rendering = new Map<string, Promise<Entry>>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly liveMs = 1000,
    private readonly compress: (body: Buffer) => Promise<Buffer | undefined> = gzipPage,
  ) {}

  /** Moves to the store's current token; everything cached under an older one is dropped. */
  observe(token: string): void {
    if (token === this.token) return;
    this.token = token;
    this.pages.clear();
    this.rendering.clear();
    this.bytes = 0;
  }

  /**
   * The page `key` (team and URL) as of `token`, the store's token read after the request
   * arrived: kept bytes, a rendering already under way for that token, or a new rendering
   * (kept if the store is still at `token`). `hit` tells whether this request rendered it.
   */
  async serve(
    token: string,
    key: string,
    render: () => Promise<RenderedPage>,
    now = Date.now(),
  ): Promise<ServedPage> {
    const kept = this.pages.get(key);
    if (token === this.token && kept !== undefined && (!kept.live || now - kept.at <= this.liveMs)) {
      return served(kept, true);
    }
    const pending = token === this.token ? this.rendering.get(key) : undefined;
    if (pending !== undefined) return served(await pending, true);
    const rendered = render().then((page) => this.entryOf(key, page));
    if (token !== this.token) return served(await rendered, false);
    this.rendering.set(key, rendered);
    try {
      const entry = await rendered;
      if (token === this.token) this.keep(key, entry);
      return served(entry, false);
    } finally {
      if (this.rendering.get(key) === rendered) this.rendering.delete(key);
    }
  }

  private entryOf(key: string, page: RenderedPage): Entry {
    return new Entry(key, page.body, page.live, Date.now(), this.compress, (entry, bytes) =>
      this.grown(entry, bytes),
    );
  }

  private keep(key: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes / 8) return;
    const previous = this.pages.get(key);
    if (previous !== undefined) this.drop(previous);
    this.makeRoom(entry.bytes);
    this.pages.set(key, entry);
    this.bytes += entry.bytes;
  }

  /** A page's gzip was made: counted if the page is kept, older pages dropped to make room. */
  private grown(entry: Entry, bytes: number): void {
    if (this.pages.get(entry.key) !== entry) return;
    this.bytes += bytes;
    this.makeRoom(0);
  }

  private makeRoom(size: number): void {
    while (this.bytes + size > this.maxBytes && this.pages.size > 0) {
      const oldest = this.pages.values().next().value as Entry;
      this.drop(oldest);
    }
  }

  private drop(entry: Entry): void {
    this.pages.delete(entry.key);
    this.bytes -= entry.bytes;
  }
}

function served(entry: Entry, hit: boolean): ServedPage {
  return { body: entry.body, hit, gzipped: () => entry.gzipped() };
}
