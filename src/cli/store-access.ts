import {
  describeLocation,
  isStoreUnavailable,
  maskCredentials,
  openStore,
  resolveLocation,
  type Store,
  type StoreLocation,
  StoreRequestError,
} from '../store/index.js';
import { ExitCode, UserError } from './exit.js';
import type { CliIo } from './io.js';

/** The store named by `--db` (or `KEYHOLE_DB`, or the default); a location it cannot be is a usage error. */
export function storeLocation(db: string | undefined, io: CliIo): StoreLocation {
  try {
    return resolveLocation(db, io.env, io.cwd);
  } catch (error) {
    if (error instanceof StoreRequestError) throw new UserError(error.message, ExitCode.usage);
    throw error;
  }
}

/**
 * Opens the store named by `--db` (migrating it on first use), runs `work`, and closes it.
 * Store errors become messages for the user, without credentials: unreachable → exit 2, refused
 * request → exit 1.
 */
export async function withStore<T>(
  io: CliIo,
  db: string | undefined,
  work: (store: Store) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const location = storeLocation(db, io);
  let store: Store;
  try {
    store = await openStore(location, { migrate: options.migrate !== false });
  } catch (error) {
    throw new UserError(
      `cannot open the store (${describeLocation(location)}): ${maskCredentials(reasonOf(error), location)}`,
      isStoreUnavailable(error) ? ExitCode.failed : ExitCode.usage,
    );
  }
  try {
    return await work(store);
  } catch (error) {
    if (error instanceof UserError) throw error;
    if (error instanceof StoreRequestError) throw new UserError(error.message, ExitCode.usage);
    const reason = maskCredentials(reasonOf(error), location);
    if (isStoreUnavailable(error)) {
      throw new UserError(
        `the store (${describeLocation(location)}) became unreachable: ${reason}`,
        ExitCode.failed,
      );
    }
    throw new UserError(reason, ExitCode.failed);
  } finally {
    await store.close().catch(() => undefined);
  }
}

export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  return message === '' ? String((error as { code?: unknown }).code ?? 'unknown error') : message;
}
