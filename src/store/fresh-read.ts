/**
 * Wraps a read so that concurrent callers share round trips without ever getting a value read
 * before they called: a call made while a read is under way waits for the next read (started
 * when the current one ends), which every call made meanwhile shares. Under load that is at most
 * one read in flight and one queued, however many callers there are.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const started = read().finally(() => {
      if (current === started) current = undefined;
    });
    current = started;
    return started;
  };
  return () => {
    if (current === undefined) return start();
    next ??= current
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
