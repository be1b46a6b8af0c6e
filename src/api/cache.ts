/**
 * Rendered `/v1` pages, kept while the store's data is unchanged: a page is served again only
 * for the same team, the same URL and the same store change token (equal tokens mean identical
 * data, see `Store.changeToken`), and for at most a second, so live fields such as a running
 * scan's elapsed time stay fresh. API key checks are cached under the token the same way, so a
 * revocation (a write) takes effect on the next request.
 */
export class PageCache {
  private token = '';
  private readonly pages = new Map<string, { body: string; at: number }>();
  private readonly principals = new Map<string, unknown>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxAgeMs = 1000,
  ) {}

  /** Moves to the store's current token; everything cached under an older one is dropped. */
  observe(token: string): void {
    if (token === this.token) return;
    this.token = token;
    this.pages.clear();
    this.principals.clear();
    this.bytes = 0;
  }

  page(team: string, url: string, now = Date.now()): string | undefined {
    const entry = this.pages.get(`${team} ${url}`);
    if (entry === undefined || now - entry.at > this.maxAgeMs) return undefined;
    return entry.body;
  }

  /** Keeps a page rendered while the store was at `token` (ignored if the store has moved on). */
  keep(token: string, team: string, url: string, body: string, now = Date.now()): void {
    if (token !== this.token || body.length > this.maxBytes / 8) return;
    while (this.bytes + body.length > this.maxBytes && this.pages.size > 0) {
      const [oldest, entry] = this.pages.entries().next().value as [string, { body: string }];
      this.pages.delete(oldest);
      this.bytes -= entry.body.length;
    }
    const key = `${team} ${url}`;
    const previous = this.pages.get(key);
    if (previous !== undefined) this.bytes -= previous.body.length;
    this.pages.set(key, { body, at: now });
    this.bytes += body.length;
  }

  /** The principal a key hash stood for under the current token: a value, `null` (refused), or undefined (not known). */
  principal<T>(keyHash: string): T | null | undefined {
    return this.principals.get(keyHash) as T | null | undefined;
  }

  rememberPrincipal(token: string, keyHash: string, principal: unknown): void {
    if (token !== this.token || this.principals.size > 10_000) return;
    this.principals.set(keyHash, principal);
  }
}
