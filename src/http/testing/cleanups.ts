import { afterEach } from 'vitest';
import { HttpClient } from '../client.js';
import { TransportError } from '../errors.js';

/**
 * What a test file's tests open (servers, clients), closed after each test, last opened first.
 * Call once at the top of the file.
 */
export function closedAfterEach() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    /** Runs each cleanup after the current test (the last given first). */
    defer(...cleanup: (() => Promise<void>)[]): void {
      cleanups.push(...cleanup);
    },
    /** A client closed after the current test. */
    client(options: ConstructorParameters<typeof HttpClient>[0] = {}): HttpClient {
      const made = new HttpClient(options);
      cleanups.push(() => made.close());
      return made;
    },
  };
}

/** The TransportError `promise` rejects with; anything else fails the test. */
export async function failure(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TransportError)) throw new Error(`expected a TransportError, got ${String(error)}`);
  return error;
}
