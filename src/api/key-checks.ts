/**
 * The outcome of API key checks, remembered while the store is unchanged (the same change
 * token, see `Store.changeToken`): equal tokens mean identical data, so the same key stands for
 * the same principal, or is refused the same way. Any write (a revocation among them) moves the
 * token and forgets every check, so it takes effect on the next request. Kept whether or not the
 * page cache is on: a request without its page in memory need not look its key up again either.
 */
export class KeyChecks<T> {
  private token = '';
  private readonly checks = new Map<string, T | null>();

  constructor(private readonly maxKeys = 10_000) {}

  /** Moves to the store's current token; every check made under an older one is forgotten. */
  observe(token: string): void {
    if (token === this.token) return;
    this.token = token;
    this.checks.clear();
  }

  /** What the key hash stood for under the current token: a value, `null` (refused), or undefined (not known). */
  get(keyHash: string): T | null | undefined {
    return this.checks.get(keyHash);
  }

  /** Remembers a check made under `token`, unless the store has moved on since. */
  remember(token: string, keyHash: string, outcome: T | null): void {
    if (token !== this.token || this.checks.size >= this.maxKeys) return;
    this.checks.set(keyHash, outcome);
  }
}
