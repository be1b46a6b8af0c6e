import { type RateCount, type RateCounts, WindowCounts } from './rate-counts.js';

/**
 * Rate limits held across processes by leases. Asking the process that keeps the counts on every
 * request cost a cheap request a quarter of the rate of two processes (measured): instead the
 * keeper grants each process a share of what a key has left of its window, which that process
 * counts down on its own, asking again only when its share is spent or older than
 * {@link LEASE_MS}, and giving back what it did not use. A key is never served more than its limit
 * in a window (what is granted never exceeds it); it may be refused early while another process
 * still holds part of its limit, for at most about twice {@link LEASE_MS}.
 */

/** How long a process counts a lease down before it asks again and gives back what it did not use. */
export const LEASE_MS = 100;

/** A process's ask for a share of a key's window, giving back what its last lease left unused. */
export interface LeaseAsk {
  readonly key: string;
  readonly windowMs: number;
  readonly max: number;
  readonly returning?: GivenBack;
}

export interface GivenBack {
  readonly key: string;
  readonly windowStartedAt: number;
  readonly unused: number;
}

/** Requests one process may serve for a key without asking again. */
export interface Lease {
  /** 0: the key has nothing left of its window. */
  readonly granted: number;
  /** Requests granted in the window before this lease. */
  readonly countedBefore: number;
  readonly windowStartedAt: number;
  /** Milliseconds left of the window. */
  readonly ttl: number;
}

/** The keeper's side: each key's window, and what has been granted of it. */
export class RateLeases {
  constructor(
    /** How many processes share the keys' limits: a lease is at most half of a fair share of what is left. */
    private readonly holders: number,
    private readonly counts: WindowCounts = new WindowCounts(),
  ) {}

  lease(ask: LeaseAsk): Lease {
    if (ask.returning !== undefined) this.giveBack(ask.returning);
    const left = ask.max - this.counts.peek(ask.key, ask.windowMs);
    const granted = left <= 0 ? 0 : Math.max(1, Math.floor(left / (2 * this.holders)));
    const window = this.counts.add(ask.key, ask.windowMs, granted);
    return {
      granted,
      countedBefore: window.current - granted,
      windowStartedAt: window.startedAt,
      ttl: window.ttl,
    };
  }

  giveBack(back: GivenBack): void {
    this.counts.takeBack(back.key, back.windowStartedAt, back.unused);
  }
}

/** How a process reaches the keeper. */
export interface LeaseKeeper {
  lease(ask: LeaseAsk): Promise<Lease>;
  giveBack(back: GivenBack): Promise<void>;
}

interface Held {
  left: number;
  used: number;
  readonly countedBefore: number;
  readonly windowStartedAt: number;
  readonly windowEndsAt: number;
  readonly expiresAt: number;
}

/** A process's side: {@link RateCounts} served from leases. */
export class LeasedCounts implements RateCounts {
  private readonly held = new Map<string, Held>();
  private readonly renewing = new Map<string, Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly keeper: LeaseKeeper,
    private readonly now: () => number = Date.now,
    private readonly leaseMs: number = LEASE_MS,
  ) {}

  async count(key: string, windowMs: number, max: number): Promise<RateCount> {
    for (;;) {
      const taken = this.take(key, max);
      if (taken !== undefined) return taken;
      await this.renew(key, windowMs, max);
    }
  }

  /** One request from the key's lease; undefined when it has none to give and must ask. */
  private take(key: string, max: number): RateCount | undefined {
    const held = this.held.get(key);
    const at = this.now();
    if (held === undefined || at >= held.expiresAt) return undefined;
    const ttl = Math.max(0, held.windowEndsAt - at);
    if (held.left > 0) {
      held.left--;
      held.used++;
      return { current: held.countedBefore + held.used, ttl };
    }
    // Nothing was granted: the key has spent its window (until this lease expires and it asks again).
    return held.used === 0 ? { current: max + 1, ttl } : undefined;
  }

  /** A new lease for the key; one ask at a time per key, which every request waiting shares. */
  private renew(key: string, windowMs: number, max: number): Promise<void> {
    const asking = this.renewing.get(key);
    if (asking !== undefined) return asking;
    const old = this.held.get(key);
    this.held.delete(key);
    const returning =
      old !== undefined && old.left > 0
        ? { key, windowStartedAt: old.windowStartedAt, unused: old.left }
        : undefined;
    const renewal = this.keeper
      .lease({ key, windowMs, max, ...(returning === undefined ? {} : { returning }) })
      .then((lease) => {
        const at = this.now();
        const windowEndsAt = at + lease.ttl;
        this.held.set(key, {
          left: lease.granted,
          used: 0,
          countedBefore: lease.countedBefore,
          windowStartedAt: lease.windowStartedAt,
          windowEndsAt,
          expiresAt: Math.min(windowEndsAt, at + this.leaseMs),
        });
        this.sweepLater();
      })
      .finally(() => this.renewing.delete(key));
    this.renewing.set(key, renewal);
    return renewal;
  }

  /** Gives back, every lease period, what expired leases left unused, so other processes may serve it. */
  private sweepLater(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), this.leaseMs);
    this.sweeper.unref();
  }

  private sweep(): void {
    const at = this.now();
    for (const [key, held] of this.held) {
      if (at < held.expiresAt || this.renewing.has(key)) continue;
      this.held.delete(key);
      if (held.left > 0)
        this.keeper
          .giveBack({ key, windowStartedAt: held.windowStartedAt, unused: held.left })
          .catch(() => undefined);
    }
    if (this.held.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
