/**
 * The bounds of a cookie jar and which cookie makes room when one is reached. A jar holds at most
 * {@link cookieLimits}.perDomain cookies per registrable domain (`app.example.com` and
 * `api.example.com` share `example.com`'s places) and {@link cookieLimits}.total in all, as browsers
 * bound theirs (RFC 6265 §6.1).
 *
 * Who makes room. Browsers drop the cookie used least recently; that alone would let a response that
 * sets thousands of cookies push out every cookie before them, a login's session cookie first. Here
 * a cookie that has been sent is preferred to one that has not: a full domain (or jar) makes room
 * for a new cookie by dropping the cookie sent least recently (of those sent equally recently, the
 * newest) only while every cookie it holds has been sent at least once; otherwise the new cookie is
 * refused. A flood therefore takes at most one place per request, from the cookie that mattered
 * least, and the cookies a site keeps using keep theirs.
 */
import { getDomain } from 'tldts';

export const cookieLimits = {
  /** Name and value together, in bytes (as Chromium and Firefox measure it); longer ones are refused. */
  bytesPerCookie: 4096,
  /** Cookies per registrable domain (RFC 6265's minimum). */
  perDomain: 50,
  /** Cookies in one jar, that is one template run against one target. */
  total: 1000,
  /** Bytes of a request's `Cookie` header; the jar's cookies that would make it longer stay out. */
  headerBytes: 8192,
} as const;

/** What identifies a stored cookie: RFC 6265's domain, path and name. */
export interface CookieIdentity {
  readonly domain: string;
  readonly path: string;
  readonly name: string;
}

interface Held extends CookieIdentity {
  readonly site: string;
  /** Order of arrival: higher is newer. */
  readonly arrival: number;
  /** The send (a tick of the jar's clock) that last carried it; 0 while never sent. */
  sentAt: number;
}

/** How many cookies a domain (or the whole jar) holds, and how many of them were never sent. */
interface Tally {
  held: number;
  unsent: number;
}

/** The jar's books: which cookies it holds, per domain, and when each was last sent. */
export class CookieBook {
  private readonly held = new Map<string, Held>();
  private readonly sites = new Map<string, Tally>();
  private readonly all: Tally = { held: 0, unsent: 0 };
  private arrivals = 0;
  private clock = 0;

  get size(): number {
    return this.all.held;
  }

  /** Whether `cookie` is already held (storing it again replaces it and takes no new place). */
  holds(cookie: CookieIdentity): boolean {
    return this.held.has(idOf(cookie));
  }

  /**
   * Records a cookie just stored as new, and returns the cookie that must go for the limits to hold
   * (the new cookie itself when it is refused), or undefined when there is room. The caller removes
   * that cookie from its store and calls {@link forget} with it.
   */
  admit(cookie: CookieIdentity): CookieIdentity | undefined {
    const site = siteOf(cookie.domain);
    const { domain, path, name } = cookie;
    const entry: Held = { domain, path, name, site, arrival: ++this.arrivals, sentAt: 0 };
    const tally = this.tallyOf(site);
    const siteFull = tally.held >= cookieLimits.perDomain;
    const full = siteFull ? tally : this.all.held >= cookieLimits.total ? this.all : undefined;
    this.held.set(idOf(cookie), entry);
    count(tally, entry, 1);
    count(this.all, entry, 1);
    if (full === undefined) return undefined;
    // Another cookie of the full scope not sent yet: the new one waits outside.
    if (full.unsent > 1) return entry;
    return this.leastRecentlySent(siteFull ? site : undefined, entry);
  }

  /** The cookie is no longer stored (replaced by nothing, expired, deleted, or evicted). */
  forget(cookie: CookieIdentity): void {
    const id = idOf(cookie);
    const entry = this.held.get(id);
    if (entry === undefined) return;
    this.held.delete(id);
    count(this.all, entry, -1);
    const tally = this.sites.get(entry.site);
    if (tally === undefined) return;
    count(tally, entry, -1);
    if (tally.held === 0) this.sites.delete(entry.site);
  }

  /** The cookies go out together with one request. */
  sent(cookies: readonly CookieIdentity[]): void {
    const tick = ++this.clock;
    for (const cookie of cookies) {
      const entry = this.held.get(idOf(cookie));
      if (entry === undefined) continue;
      if (entry.sentAt === 0) {
        this.all.unsent--;
        const tally = this.sites.get(entry.site);
        if (tally !== undefined) tally.unsent--;
      }
      entry.sentAt = tick;
    }
  }

  private tallyOf(site: string): Tally {
    let tally = this.sites.get(site);
    if (tally === undefined) {
      tally = { held: 0, unsent: 0 };
      this.sites.set(site, tally);
    }
    return tally;
  }

  /** In a domain (or the whole jar), the cookie sent least recently; of those, the newest; never `except`. */
  private leastRecentlySent(site: string | undefined, except: Held): Held {
    let chosen: Held = except;
    for (const entry of this.held.values()) {
      if (entry === except || (site !== undefined && entry.site !== site)) continue;
      if (
        chosen === except ||
        entry.sentAt < chosen.sentAt ||
        (entry.sentAt === chosen.sentAt && entry.arrival > chosen.arrival)
      )
        chosen = entry;
    }
    return chosen;
  }
}

/** The bytes of a cookie's name and value. */
export function cookieBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value);
}

function count(tally: Tally, entry: Held, by: 1 | -1): void {
  tally.held += by;
  if (entry.sentAt === 0) tally.unsent += by;
}

function idOf(cookie: CookieIdentity): string {
  return `${cookie.domain}\u0000${cookie.path}\u0000${cookie.name}`;
}

/** The registrable domain cookies of `domain` count against (the host itself for IPs and `localhost`). */
function siteOf(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: true }) ?? domain;
}
