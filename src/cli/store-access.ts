import {
  describeLocation,
  isStoreUnavailable,
  openStore,
  resolveLocation,
  type Store,
  StoreRequestError,
} from '../store/index.js';
import { ExitCode, UserError } from './exit.js';
import type { CliIo } from './io.js';

/**
 * Opens the store named by `--db` (migrating it on first use), runs `work`, and closes it.
 * Store errors become messages for the user: unreachable → exit 2, refused request → exit 1.
 */
export async function withStore<T>(
  io: CliIo,
  db: string | undefined,
  work: (store: Store) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const location = resolveLocation(db, io.env, io.cwd);
  let store: Store;
  try {
    store = await openStore(location, { migrate: options.migrate !== false });
  } catch (error) {
    throw new UserError(
      `cannot open the store (${describeLocation(location)}): ${reasonOf(error)}`,
      isStoreUnavailable(error) ? ExitCode.failed : ExitCode.usage,
    );
  }
  try {
    return await work(store);
  } catch (error) {
    if (error instanceof StoreRequestError) throw new UserError(error.message, ExitCode.usage);
    if (isStoreUnavailable(error)) {
      throw new UserError(
        `the store (${describeLocation(location)}) became unreachable: ${reasonOf(error)}`,
        ExitCode.failed,
      );
    }
    throw error;
  } finally {
    await store.close().catch(() => undefined);
  }
}

export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  return message === '' ? String((error as { code?: unknown }).code ?? 'unknown error') : message;
}
