/**
 * Deadlines of in-flight exchanges, checked by one coarse timer instead of one native timer each.
 * Arming and clearing a Node timer for every request costs more than a keep-alive request itself
 * when few run at once (the timer list is torn down and rebuilt each time), so a client keeps one
 * unreferenced interval while it has exchanges in flight; a deadline fires at most `resolutionMs`
 * late. (undici does the same for its own timeouts.) Pending deadlines form an intrusive linked
 * list: a Set churned once per request made the garbage collector keep far more young objects alive.
 */
export class Deadline {
  prev: Deadline | undefined;
  next: Deadline | undefined;
  linked = true;

  constructor(
    readonly at: number,
    readonly expire: () => void,
  ) {}
}

export class Deadlines {
  private head: Deadline | undefined;
  private tail: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;
  private idleSweeps = 0;

  constructor(private readonly resolutionMs: number) {}

  /** Calls `expire` once `ms` have passed, unless `cancel` is called first. */
  add(ms: number, expire: () => void): Deadline {
    const deadline = new Deadline(performance.now() + ms, expire);
    if (this.tail === undefined) this.head = deadline;
    else {
      this.tail.next = deadline;
      deadline.prev = this.tail;
    }
    this.tail = deadline;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.expireDue(performance.now()), this.resolutionMs);
      this.timer.unref();
    }
    return deadline;
  }

  cancel(deadline: Deadline | undefined): void {
    if (deadline === undefined || !deadline.linked) return;
    deadline.linked = false;
    if (deadline.prev === undefined) this.head = deadline.next;
    else deadline.prev.next = deadline.next;
    if (deadline.next === undefined) this.tail = deadline.prev;
    else deadline.next.prev = deadline.prev;
    deadline.prev = undefined;
    deadline.next = undefined;
  }

  /** Expires every deadline due by `now` (the interval calls this). */
  expireDue(now: number): void {
    let deadline = this.head;
    while (deadline !== undefined) {
      const next = deadline.next;
      if (deadline.at <= now) {
        this.cancel(deadline);
        deadline.expire();
      }
      deadline = next;
    }
    // Stop ticking after a while without exchanges, so an idle client costs nothing.
    this.idleSweeps = this.head === undefined ? this.idleSweeps + 1 : 0;
    if (this.idleSweeps > 50) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.idleSweeps = 0;
  }
}
