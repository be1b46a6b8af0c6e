/**
 * Hands jobs to a scan's workers so that at most `bulkSize` jobs of one template are in flight
 * (nuclei's `-bs`), while the number of workers caps them all (`-c`). Jobs come in plan order; one
 * whose template is at its cap is held aside and given out, still in order, once a run of that
 * template ends, and later jobs of other templates go first. A worker finding nothing it may take
 * waits for a run to end. When `bulkSize` is at least the number of workers the cap can never bind:
 * jobs go out exactly in plan order, as they did before `-bs`.
 */

/**
 * Held jobs at most: past this, a worker waits for a run to end rather than reading further ahead,
 * so one slow template cannot make the queue read the whole plan into memory.
 */
const MIN_HELD_LIMIT = 100;

export class BulkQueue<J> {
  private readonly inFlight = new Map<string, number>();
  private readonly held: J[] = [];
  private readonly heldLimit: number;
  private waiting: (() => void)[] = [];
  private exhausted = false;

  /**
   * @param jobs the plan's jobs, in order, read as workers ask for them
   * @param templateOf the key jobs are capped by
   */
  constructor(
    private readonly jobs: Iterator<J>,
    private readonly templateOf: (job: J) => string,
    private readonly bulkSize: number,
    workers: number,
  ) {
    this.heldLimit = Math.max(MIN_HELD_LIMIT, workers * 4);
  }

  /**
   * The next job whose template has room, marked in flight; undefined when no job is left. Waits
   * only while runs are in flight (a job is held only when its template has some), so it never hangs.
   */
  async take(): Promise<J | undefined> {
    for (;;) {
      const job = this.heldWithRoom() ?? this.readWithRoom();
      if (job !== undefined) {
        const template = this.templateOf(job);
        this.inFlight.set(template, (this.inFlight.get(template) ?? 0) + 1);
        return job;
      }
      if (this.exhausted && this.held.length === 0) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** A job `take` gave out has ended (finished, failed or stopped): its template has room again. */
  finish(job: J): void {
    const template = this.templateOf(job);
    const count = (this.inFlight.get(template) ?? 1) - 1;
    if (count === 0) this.inFlight.delete(template);
    else this.inFlight.set(template, count);
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  private hasRoom(job: J): boolean {
    return (this.inFlight.get(this.templateOf(job)) ?? 0) < this.bulkSize;
  }

  private heldWithRoom(): J | undefined {
    const index = this.held.findIndex((job) => this.hasRoom(job));
    return index < 0 ? undefined : this.held.splice(index, 1)[0];
  }

  private readWithRoom(): J | undefined {
    while (!this.exhausted && this.held.length < this.heldLimit) {
      const next = this.jobs.next();
      if (next.done === true) {
        this.exhausted = true;
        return undefined;
      }
      if (this.hasRoom(next.value)) return next.value;
      this.held.push(next.value);
    }
    return undefined;
  }
}
