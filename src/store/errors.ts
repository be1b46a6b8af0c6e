/** The store cannot be reached (network, server restarting, database locked too long): retry later. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The store was to be opened as it is, and there is none: no SQLite file, or a database without
 * keyhole's schema. Nothing was created.
 */
export class StoreMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreMissingError';
  }
}

/** A request the store refuses: an unknown id, or a change the entity's state does not allow. */
export class StoreRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_found' | 'conflict' | 'invalid',
  ) {
    super(message);
    this.name = 'StoreRequestError';
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** PostgreSQL conditions that mean "the server is not there right now", not "the query is wrong". */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '53400', '40001', '40P01']);

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'connection error',
  'Client was closed',
  'Cannot use a pool after calling end',
];

/**
 * True when an error from a database driver means the store is unreachable or overloaded rather
 * than that the request was wrong; the API answers 503 for these.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || PG_UNAVAILABLE.has(code) || code.startsWith('08')) return true;
    if (/^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|PROTOCOL)/.test(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== error) return isStoreUnavailable(cause);
  if (error instanceof AggregateError) return error.errors.some(isStoreUnavailable);
  return false;
}
