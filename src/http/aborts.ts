/**
 * Callbacks to run when a signal aborts, registered and dropped per exchange. A scan hands one
 * signal to every request it sends; adding and removing an event listener on that signal for each
 * request made the garbage collector keep and promote about a megabyte of short-lived objects per
 * young-generation collection (Node's listener records outlive their removal), which tripled the
 * collector's pauses. So each signal gets one listener, and the exchanges waiting on it form an
 * intrusive linked list, as the client's deadlines do.
 */

/** One registration; give it back to {@link AbortWatch.remove}. */
export class AbortEntry {
  prev: AbortEntry | undefined;
  next: AbortEntry | undefined;
  linked = true;

  constructor(readonly onAbort: (reason: unknown) => void) {}
}

class AbortList {
  head: AbortEntry | undefined;
  tail: AbortEntry | undefined;

  add(entry: AbortEntry): void {
    if (this.tail === undefined) this.head = entry;
    else {
      this.tail.next = entry;
      entry.prev = this.tail;
    }
    this.tail = entry;
  }

  remove(entry: AbortEntry): void {
    if (!entry.linked) return;
    entry.linked = false;
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
  }

  /** Takes entries from the head, so a callback may remove others (they are then not called). */
  fire(reason: unknown): void {
    for (let entry = this.head; entry !== undefined; entry = this.head) {
      this.remove(entry);
      entry.onAbort(reason);
    }
  }
}

const lists = new WeakMap<AbortSignal, AbortList>();

export const AbortWatch = {
  /** Calls `onAbort` with the signal's reason when `signal` aborts, unless removed first. */
  add(signal: AbortSignal, onAbort: (reason: unknown) => void): AbortEntry {
    let list = lists.get(signal);
    if (list === undefined) {
      const created = new AbortList();
      signal.addEventListener('abort', () => created.fire(signal.reason), { once: true });
      lists.set(signal, created);
      list = created;
    }
    const entry = new AbortEntry(onAbort);
    list.add(entry);
    return entry;
  },

  remove(signal: AbortSignal, entry: AbortEntry | undefined): void {
    if (entry !== undefined) lists.get(signal)?.remove(entry);
  },
};
