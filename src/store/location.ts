import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  return { engine: 'sqlite', path: sqlitePath(given, cwd), isDefault: false };
}

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

/** The location for messages: a PostgreSQL password is never shown. */
export function describeLocation(location: StoreLocation): string {
  if (location.engine === 'sqlite') return `SQLite ${location.path}`;
  try {
    const url = new URL(location.url);
    if (url.password !== '') url.password = '***';
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL (unparseable URL)';
  }
}
