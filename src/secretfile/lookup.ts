import { domainItemKey, type MatchKey } from './host.js';
import type { ScopedSecret } from './model.js';

/** Past this many distinct hosts the regex memo is cleared, so a scan of many hosts stays bounded. */
const MEMO_LIMIT = 10_000;
const NONE = -1;

/**
 * Chooses the one secret for a request (docs/secret-file.md#matching): the first entry, in file
 * order, whose `domains` holds the request's host; else the first whose `domains-regex` matches it;
 * else none.
 * A domain lookup is one or two Map reads, whatever the number of entries. Regex decisions are
 * linear in the number of patterns and memoised per host (the decision depends on the host only).
 */
export class SecretIndex {
  // Null-prototype objects rather than Maps: V8 looks their keys up by interned-string identity,
  // which stays fast when 100,000 domains no longer fit in the CPU caches (see lookup.bench.ts).
  private readonly byDomain: Record<string, number> = Object.create(null);
  /** Items written with an explicit 80 or 443, by port then host, so a lookup builds no string. */
  private readonly byDefaultPort: Record<number, Record<string, number>> = {
    80: Object.create(null),
    443: Object.create(null),
  };
  private readonly regexEntries: { readonly ordinal: number; readonly entry: ScopedSecret }[] = [];
  private readonly regexMemo = new Map<string, number>();

  constructor(readonly entries: readonly ScopedSecret[]) {
    entries.forEach((entry, ordinal) => {
      if (entry.scope.kind === 'domains') {
        for (const item of entry.scope.domains) {
          const key = domainItemKey(item);
          this.byDomain[key] ??= ordinal;
          const hosts = item.port === undefined ? undefined : this.byDefaultPort[item.port];
          if (hosts !== undefined) hosts[item.host] ??= ordinal;
        }
      } else this.regexEntries.push({ ordinal, entry });
    });
  }

  lookup(key: MatchKey): ScopedSecret | undefined {
    let best = this.byDomain[key.text];
    if (key.defaultPort) {
      // `app.test:443` written with its port also covers https://app.test (see DomainItem).
      const explicit = this.byDefaultPort[key.port]?.[key.host];
      if (explicit !== undefined && (best === undefined || explicit < best)) best = explicit;
    }
    if (best !== undefined) return this.entries[best];
    const ordinal = this.regexOrdinal(key.text);
    return ordinal === NONE ? undefined : this.entries[ordinal];
  }

  private regexOrdinal(text: string): number {
    const memo = this.regexMemo.get(text);
    if (memo !== undefined) return memo;
    let found = NONE;
    for (const { ordinal, entry } of this.regexEntries) {
      if (entry.scope.kind === 'domains-regex' && entry.scope.patterns.some((p) => p.test(text))) {
        found = ordinal;
        break;
      }
    }
    if (this.regexMemo.size >= MEMO_LIMIT) this.regexMemo.clear();
    this.regexMemo.set(text, found);
    return found;
  }
}
