/**
 * A cache file of entries by key, as the template caches keep them: `{version, entries}` JSON. It is
 * an optimisation, never trusted blindly: a file that cannot be read, is of another version or holds
 * one entry that is not what `isEntry` expects reads as empty (and is rewritten); it is written to a
 * temporary file and renamed over the old one, so a reader never sees half of it.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The entries kept in `file`; none when there is no such file or it is not one of `version`. */
export async function readCacheEntries<Entry>(
  file: string,
  version: number,
  isEntry: (value: unknown) => value is Entry,
): Promise<Map<string, Entry>> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (!isRecord(parsed) || parsed.version !== version || !isRecord(parsed.entries)) return new Map();
  const entries = new Map<string, Entry>();
  for (const [key, entry] of Object.entries(parsed.entries)) {
    if (!isEntry(entry)) return new Map();
    entries.set(key, entry);
  }
  return entries;
}

/** Writes `entries` to `file`; false (and the old file left as it was) when it cannot be written. */
export async function writeCacheEntries<Entry>(
  file: string,
  version: number,
  entries: ReadonlyMap<string, Entry>,
): Promise<boolean> {
  const temporary = `${file}.${process.pid}.tmp`;
  const text = JSON.stringify({ version, entries: Object.fromEntries(entries) });
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, file);
    return true;
  } catch {
    await rm(temporary, { force: true }).catch(() => undefined);
    return false;
  }
}

export function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
