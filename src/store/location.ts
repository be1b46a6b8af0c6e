import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StoreRequestError } from './errors.js';

/** Where the store lives: an SQLite file (the embedded default) or a PostgreSQL database. */
export type StoreLocation =
  | { readonly engine: 'sqlite'; readonly path: string; readonly isDefault: boolean }
  | { readonly engine: 'postgres'; readonly url: string };

export type Engine = StoreLocation['engine'];

/** The SQLite file used when neither `--db` nor `KEYHOLE_DB` says otherwise, under the current folder. */
export const DEFAULT_SQLITE_PATH = join('.keyhole', 'keyhole.db');

/**
 * Reads a `--db` value (or `KEYHOLE_DB`, or the default): `postgres://` / `postgresql://` select
 * PostgreSQL; anything else is an SQLite file path, optionally prefixed `sqlite:` or `file:`
 * (`sqlite:///abs/path.db`, `file:///abs/path.db` and `sqlite:rel.db` all work), relative to `cwd`.
 * A libpq keyword/value string (`host=… password=…`) is refused with a `StoreRequestError`.
 */
export function resolveLocation(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): StoreLocation {
  const given = nonEmpty(option) ?? nonEmpty(env.KEYHOLE_DB);
  if (given === undefined) {
    return { engine: 'sqlite', path: resolve(cwd, DEFAULT_SQLITE_PATH), isDefault: true };
  }
  if (/^postgres(ql)?:\/\//i.test(given)) return { engine: 'postgres', url: given };
  if (LIBPQ_KEYWORDS.test(given)) {
    // Taken as a file name, this would create an SQLite file named after the password.
    throw new StoreRequestError(
      'the store location (--db or KEYHOLE_DB) is a libpq keyword/value string (host=… dbname=…), which is not shown as it may hold a password; give a URL instead: postgres://USER@HOST:PORT/DBNAME, with the password in PGPASSWORD, ~/.pgpass or the URL',
      'invalid',
    );
  }
  return { engine: 'sqlite', path: sqlitePath(given, cwd), isDefault: false };
}

/** A libpq `keyword=value` connection string: one of its connection keywords, at the start or after a space. */
const LIBPQ_KEYWORDS =
  /(^|\s)(host|hostaddr|port|dbname|user|password|passfile|service|sslmode|sslpassword|sslkey|connect_timeout|application_name|options)\s*=/i;

function sqlitePath(text: string, cwd: string): string {
  let path = text;
  if (/^file:\/\//i.test(path)) return fileURLToPath(path);
  if (/^(sqlite|file):/i.test(path)) {
    path = path.slice(path.indexOf(':') + 1);
    if (path.startsWith('//')) path = path.slice(2);
  }
  if (path === ':memory:') return path;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** What replaces a credential in anything shown: messages, logs, errors. */
const MASK = '***';

/**
 * Query parameters of a PostgreSQL URL that hold a secret: the password, the passphrase of the
 * client key, and where the client's private key lives.
 */
const SECRET_PARAMETERS = new Set(['password', 'sslpassword', 'sslkey']);

/** The location for messages: no credential a PostgreSQL URL can hold is ever shown. */
export function describeLocation(location: StoreLocation): string {
  if (location.engine === 'sqlite') return `SQLite ${location.path}`;
  const parsed = parsePostgresUrl(location.url);
  if (parsed === undefined) return 'PostgreSQL (a URL that cannot be parsed, not shown)';
  const { url, hostless } = parsed;
  if (url.password !== '') url.password = MASK;
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) url.searchParams.set(name, MASK);
  }
  const shown = url.toString();
  return `PostgreSQL ${hostless ? shown.replace(`@${HOSTLESS}/`, '@/') : shown}`;
}

/**
 * `text` (a driver's error message, say) with every credential of `location` replaced by `***`:
 * drivers may quote a password, or the path of a key file they could not read.
 */
export function maskCredentials(text: string, location: StoreLocation): string {
  if (location.engine === 'sqlite') return text;
  let masked = text.replaceAll(location.url, describeLocation(location).slice('PostgreSQL '.length));
  for (const secret of secretsOf(location.url)) masked = masked.replaceAll(secret, MASK);
  return masked;
}

const HOSTLESS = 'keyhole.hostless';

/**
 * The URL as the PostgreSQL driver reads it: spaces and stray `%` escaped, and a URL without a
 * host (`postgres://user:pw@/db?host=/run/postgresql`) given a placeholder one.
 */
function parsePostgresUrl(text: string): { url: URL; hostless: boolean } | undefined {
  const escaped = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)
    ? encodeURI(text).replace(/%25(\d\d)/g, '%$1')
    : text;
  try {
    return { url: new URL(escaped), hostless: false };
  } catch {
    try {
      return { url: new URL(escaped.replace('@/', `@${HOSTLESS}/`)), hostless: true };
    } catch {
      return undefined;
    }
  }
}

/** Every secret value in a PostgreSQL URL, as written and as decoded. */
function secretsOf(text: string): string[] {
  const parsed = parsePostgresUrl(text);
  if (parsed === undefined) return [];
  const { url } = parsed;
  const values = [url.password];
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) values.push(value);
  }
  const secrets = new Set<string>();
  for (const value of values) {
    if (value === '') continue;
    secrets.add(value);
    secrets.add(encodeURIComponent(value));
    secrets.add(new URLSearchParams({ v: value }).toString().slice(2));
    try {
      secrets.add(decodeURIComponent(value));
    } catch {
      // not percent-encoded text: the value as written is the secret
    }
  }
  // Longest first, so a secret that contains another is masked whole.
  return [...secrets].sort((a, b) => b.length - a.length);
}
