import { createHmac } from 'node:crypto';

/**
 * One-time codes of RFC 6238 (TOTP) over RFC 4226 (HOTP). Written here rather than taken from a
 * library: it is a dozen lines over node:crypto's HMAC, and the part that matters to a scanner —
 * never reusing a code across re-logins — is ours either way.
 */

export const TOTP_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

export interface TotpOptions {
  readonly digits: number;
  /** Seconds a code is valid for. */
  readonly periodSeconds: number;
  readonly algorithm: TotpAlgorithm;
}

export const DEFAULT_TOTP: TotpOptions = { digits: 6, periodSeconds: 30, algorithm: 'sha1' };

/** RFC 4226 §5.3: the HMAC of the counter, dynamically truncated to `digits` decimal digits. */
export function hotp(key: Uint8Array, counter: number, digits: number, algorithm: TotpAlgorithm): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The TOTP time step of a moment (milliseconds since the epoch). */
export function totpCounter(nowMs: number, periodSeconds: number): number {
  return Math.floor(nowMs / 1000 / periodSeconds);
}

export function totp(key: Uint8Array, nowMs: number, options: TotpOptions): string {
  return hotp(key, totpCounter(nowMs, options.periodSeconds), options.digits, options.algorithm);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * The key of a base32 secret as authenticator apps show it: any case, spaces and dashes between
 * groups, padding optional. A reason when it is not base32.
 */
export function decodeBase32(text: string): Uint8Array | { readonly problem: string } {
  const clean = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (clean === '') return { problem: 'the TOTP secret is empty' };
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    const value = BASE32.indexOf(char);
    if (value === -1)
      return {
        problem: `the TOTP secret is not base32: it holds ${JSON.stringify(char)}; base32 uses A-Z and 2-7 only`,
      };
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return Uint8Array.from(bytes);
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
};

/**
 * The codes of one TOTP secret across the logins of a run. A server accepts a code once: a
 * re-login within the same period would be refused, so it waits for the next period instead.
 */
export class OneTimeCode {
  private lastCounter = -1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly key: Uint8Array,
    readonly options: TotpOptions,
    private readonly clock: Clock = systemClock,
  ) {}

  /** A code not given before; waits (at most one period) when the current one was already used. */
  next(): Promise<string> {
    const code = this.queue.then(() => this.fresh());
    this.queue = code.catch(() => undefined);
    return code;
  }

  private async fresh(): Promise<string> {
    const period = this.options.periodSeconds;
    let now = this.clock.now();
    let counter = totpCounter(now, period);
    if (counter <= this.lastCounter) {
      const nextPeriodAt = (this.lastCounter + 1) * period * 1000;
      await this.clock.sleep(Math.max(0, nextPeriodAt - now));
      now = Math.max(this.clock.now(), nextPeriodAt);
      counter = totpCounter(now, period);
    }
    this.lastCounter = counter;
    return hotp(this.key, counter, this.options.digits, this.options.algorithm);
  }
}

/** A value a login fills in: text, or a one-time code made when the login runs. */
export type LoginValue = string | OneTimeCode;

export function valueNow(value: LoginValue): Promise<string> | string {
  return typeof value === 'string' ? value : value.next();
}
