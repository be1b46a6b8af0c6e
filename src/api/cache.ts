/** A rendered page: its JSON bytes, and whether it shows values that change with time alone. */
export interface RenderedPage {
  readonly body: Buffer;
  /** The same bytes gzipped, for clients that accept it; absent for pages too small to compress. */
  readonly gzip?: Buffer | undefined;
  /** True when the page shows a running scan's elapsed time, which grows while the data stay equal. */
  readonly live: boolean;
}

/** A page as served: its bytes, and whether they were kept or being rendered by another request. */
export interface ServedPage {
  readonly body: Buffer;
  readonly gzip?: Buffer | undefined;
  readonly hit: boolean;
}

interface Entry extends RenderedPage {
  readonly at: number;
}

/**
 * Rendered `/v1` pages, kept as the bytes sent (identity and gzip) while the store's data is unchanged: a page is
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
  private readonly rendering = new Map<string, Promise<RenderedPage>>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly liveMs = 1000,
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
    const entry = this.pages.get(key);
    if (token === this.token && entry !== undefined && (!entry.live || now - entry.at <= this.liveMs)) {
      return served(entry, true);
    }
    const pending = token === this.token ? this.rendering.get(key) : undefined;
    if (pending !== undefined) return served(await pending, true);
    const rendered = render();
    if (token !== this.token) return served(await rendered, false);
    this.rendering.set(key, rendered);
    try {
      const page = await rendered;
      if (token === this.token) this.keep(key, page, Date.now());
      return served(page, false);
    } finally {
      if (this.rendering.get(key) === rendered) this.rendering.delete(key);
    }
  }

  private keep(key: string, page: RenderedPage, at: number): void {
    const size = sizeOf(page);
    if (size > this.maxBytes / 8) return;
    const previous = this.pages.get(key);
    if (previous !== undefined) {
      this.pages.delete(key);
      this.bytes -= sizeOf(previous);
    }
    while (this.bytes + size > this.maxBytes && this.pages.size > 0) {
      const [oldest, entry] = this.pages.entries().next().value as [string, Entry];
      this.pages.delete(oldest);
      this.bytes -= sizeOf(entry);
    }
    this.pages.set(key, { ...page, at });
    this.bytes += size;
  }
}

function served(page: RenderedPage, hit: boolean): ServedPage {
  return { body: page.body, gzip: page.gzip, hit };
}

function sizeOf(page: RenderedPage): number {
  return page.body.length + (page.gzip?.length ?? 0);
}
