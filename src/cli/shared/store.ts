import {
  describeLocation,
  isStoreUnavailable,
  maskCredentials,
  openStore,
  resolveLocation,
  type Store,
  type StoreLocation,
  StoreMissingError,
  StoreRequestError,
  type Team,
} from '../../store/index.js';
import { ExitCode, UserError } from '../exit.js';
import type { CliIo } from '../io.js';
import { reasonOf } from './errors.js';

/** How a command uses the store. */
export interface StoreAccess {
  /**
   * True for commands that record (import, assets upload, keys create, scan, worker, db migrate):
   * they create the store on first use. Every other command needs an existing store, and creates
   * nothing when there is none.
   */
  readonly create: boolean;
  /** Apply pending migrations on open (default true). */
  readonly migrate?: boolean;
}

/** The store named by `--db` (or `KEYHOLE_DB`, or the default); a location it cannot be is a usage error. */
export function storeLocation(db: string | undefined, io: CliIo): StoreLocation {
  try {
    return resolveLocation(db, io.env, io.cwd);
  } catch (error) {
    if (error instanceof StoreRequestError) throw new UserError(error.message, ExitCode.usage);
    throw error;
  }
}

/** Workers share queued scans through PostgreSQL only: anything else is refused before any work. */
export function requireQueueStore(db: string | undefined, io: CliIo, flag: string): void {
  const location = storeLocation(db, io);
  if (location.engine === 'postgres') return;
  throw new UserError(
    `${flag} needs a PostgreSQL store, shared with the workers: give --db postgres://… (or set KEYHOLE_DB); ${describeLocation(location)} is not one`,
  );
}

/**
 * Opens the store named by `--db` (migrating it on first use), runs `work`, and closes it.
 * Store errors become messages for the user, without credentials: unreachable → exit 2, missing
 * or refused request → exit 1.
 */
export async function withStore<T>(
  io: CliIo,
  db: string | undefined,
  access: StoreAccess,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const location = storeLocation(db, io);
  const readConnections = readConnectionsOf(io.env);
  let store: Store;
  try {
    store = await openStore(location, {
      create: access.create,
      migrate: access.migrate !== false,
      ...(readConnections === undefined ? {} : { readConnections }),
    });
  } catch (error) {
    if (error instanceof StoreMissingError) throw missingStore(error);
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

/** The most connections a listing pool opens on PostgreSQL, from `KEYHOLE_DB_READ_CONNECTIONS`. */
const MOST_READ_CONNECTIONS = 100;

/**
 * `KEYHOLE_DB_READ_CONNECTIONS` (empty counts as unset): the connections each of the store's
 * listing pools opens on PostgreSQL. Anything but a whole number from 1 to 100 is a usage error.
 */
function readConnectionsOf(env: CliIo['env']): number | undefined {
  const given = env.KEYHOLE_DB_READ_CONNECTIONS?.trim() ?? '';
  if (given === '') return undefined;
  const n = /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (n >= 1 && n <= MOST_READ_CONNECTIONS) return n;
  throw new UserError(
    `KEYHOLE_DB_READ_CONNECTIONS is ${JSON.stringify(given)}: give a whole number of connections from 1 to ${MOST_READ_CONNECTIONS} (each of the two pools for listings opens at most that many), or leave it unset for this machine's cores`,
    ExitCode.usage,
  );
}

function missingStore(error: StoreMissingError): UserError {
  return new UserError(
    `${error.message}; nothing was created. A store is created by the commands that record (import, assets upload, keys create, scan) or by db migrate; give --db or set KEYHOLE_DB to use another`,
    ExitCode.usage,
  );
}

/** The team named `name`, which must exist: reading a team never creates it. */
export async function existingTeam(store: Store, name: string): Promise<Team> {
  const team = await store.teams.byName(name);
  if (team !== undefined) return team;
  const names = await store.teams.names();
  const known = names.length === 0 ? 'it has no team yet' : `its teams: ${names.join(', ')}`;
  throw new UserError(
    `team "${name}" does not exist in ${describeLocation(store.location)} (${known}); a team is created by the first command that records something for it with --team`,
  );
}
