/**
 * The gate of a race: requests sent on connections of their own, each written but for its last
 * byte, then finished all at once, so that they reach the server within one round of packets
 * (the "last-byte sync" of race-condition testing). Each request arrives at the gate once its
 * withheld prefix is on the wire, or withdraws when it failed before that; the gate opens when
 * every party has done either, or `holdMs` after the first arrival, so that one slow connection
 * delays the others by at most that. An open gate lets any later write through (a resend).
 */
export class RaceGate {
  private waiting = 0;
  private open = false;
  private readonly release: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private parties: number,
    private readonly holdMs = 2_000,
  ) {}

  /** Resolves when the gate opens: every party arrived or withdrew, or the hold ran out. */
  arrive(): Promise<void> {
    if (this.open) return Promise.resolve();
    this.waiting++;
    const opened = new Promise<void>((resolve) => this.release.push(resolve));
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.openNow(), this.holdMs);
      this.timer.unref();
    }
    this.openWhenAllIn();
    return opened;
  }

  /** A party that will not arrive (it failed before its prefix went out). */
  withdraw(): void {
    if (this.open) return;
    this.parties--;
    this.openWhenAllIn();
  }

  get isOpen(): boolean {
    return this.open;
  }

  private openWhenAllIn(): void {
    if (this.waiting >= this.parties) this.openNow();
  }

  private openNow(): void {
    if (this.open) return;
    this.open = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const resolve of this.release.splice(0)) resolve();
  }
}
