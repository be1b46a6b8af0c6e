/**
 * Time on the wire that the sends of one exchange share: the hops of a redirect chain and their
 * retries. Each send keeps its own deadline and ends sooner when the shared time runs out first, so
 * a chain that redirects on and on, or a hop retried after hop, ends within a bound fixed in advance
 * whatever a template's `max-redirects` says. Time spent before a send goes out (a rate limit, a
 * login that the request waits for) is not counted.
 */
export class SendBudget {
  private totalMs: number | undefined;
  private spentMs = 0;

  /** `deadlines`: how many whole per-request deadlines the sends may take together. */
  constructor(private readonly deadlines: number) {}

  /** The shared time, once the first send fixed it; undefined before. */
  get total(): number | undefined {
    return this.totalMs;
  }

  /** True once the shared time is used up: nothing more may be sent. */
  get exhausted(): boolean {
    return this.totalMs !== undefined && this.spentMs >= this.totalMs;
  }

  /** The time left for a send whose own deadline is `timeoutMs` (the first send fixes the total from it). */
  left(timeoutMs: number): number {
    this.totalMs ??= this.deadlines * timeoutMs;
    return this.totalMs - this.spentMs;
  }

  spend(ms: number): void {
    this.spentMs += ms;
  }
}
