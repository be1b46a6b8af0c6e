import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../store/index.js';

/** A signed-in browser: the API key's principal, and the token its forms must carry. */
export interface Session {
  readonly principal: Principal;
  readonly csrfToken: string;
  lastSeen: number;
  readonly createdAt: number;
}

export interface SessionLimits {
  /** A session unused this long ends (default 12 h). */
  readonly idleMs: number;
  /** A session ends this long after sign-in, used or not (default 7 days). */
  readonly maxAgeMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 12 * 3_600_000, maxAgeMs: 7 * 86_400_000 };

/**
 * Where the signed-in browsers' sessions are kept: this process's memory ({@link Sessions}) or, for
 * `keyhole serve --processes N`, the first process's, asked by the others (a browser's requests
 * may land on any of them).
 */
export interface SessionStore {
  /** A new session for the principal; returns the cookie's value and the session. */
  open(principal: Principal): Opened | Promise<Opened>;
  /** The live session of that cookie value, its idle clock restarted; undefined once expired. */
  find(id: string): Session | undefined | Promise<Session | undefined>;
  close(id: string): void | Promise<void>;
}

export interface Opened {
  readonly id: string;
  readonly session: Session;
}

/**
 * Sessions in this server's memory, keyed by the SHA-256 of their cookie's value: the random
 * value (256 bits) is only ever in the browser's cookie. A restart signs every browser out.
 */
export class Sessions implements SessionStore {
  private readonly byHash = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  open(principal: Principal): Opened {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    const at = this.now();
    const session: Session = {
      principal,
      csrfToken: randomBytes(32).toString('base64url'),
      lastSeen: at,
      createdAt: at,
    };
    this.byHash.set(hashOf(id), session);
    return { id, session };
  }

  find(id: string): Session | undefined {
    const key = hashOf(id);
    const session = this.byHash.get(key);
    if (session === undefined) return undefined;
    const at = this.now();
    if (this.expired(session, at)) {
      this.byHash.delete(key);
      return undefined;
    }
    session.lastSeen = at;
    return session;
  }

  close(id: string): void {
    this.byHash.delete(hashOf(id));
  }

  get size(): number {
    return this.byHash.size;
  }

  private expired(session: Session, at: number): boolean {
    return at - session.lastSeen > this.limits.idleMs || at - session.createdAt > this.limits.maxAgeMs;
  }

  private sweep(): void {
    const at = this.now();
    for (const [key, session] of this.byHash) if (this.expired(session, at)) this.byHash.delete(key);
  }
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokensMatch(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function hashOf(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}
