/**
 * The fields the filters look at, remembered per template file between scans, so that a filtered
 * selection over a whole library opens only the files it takes. An entry holds for the file while
 * its size, modification and change times are those it was read with. The cache is an
 * optimisation, never trusted blindly: a file that cannot be read or does not hold what this
 * version writes is ignored (and rewritten); it is written to a temporary file and renamed over the
 * old one, so a reader never sees half of it.
 */
import type { Stats } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isSeverity, type Severity } from '../event/index.js';
import type { FilterFields } from './select.js';

const VERSION = 1;

interface Entry {
  /** `size:mtimeMs:ctimeMs` of the file when its fields were read. */
  readonly stamp: string;
  readonly id: string;
  readonly protocol: string;
  readonly tags: readonly string[];
  readonly authors: readonly string[];
  readonly severity?: Severity;
}

export type FileStamp = Pick<Stats, 'size' | 'mtimeMs' | 'ctimeMs'>;

export class MetadataCache {
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, Entry>,
  ) {}

  /** The cache kept in `file`; empty when there is none or it cannot be read as one. */
  static async open(file: string): Promise<MetadataCache> {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    return new MetadataCache(file, text === undefined ? new Map() : entriesOf(text));
  }

  /** The fields of `file` as read before, when it has not changed since. */
  lookup(file: string, stamp: FileStamp): FilterFields | undefined {
    const entry = this.entries.get(resolve(file));
    if (entry === undefined || entry.stamp !== stampOf(stamp)) return undefined;
    return {
      file,
      id: entry.id,
      protocol: entry.protocol,
      info: {
        tags: entry.tags,
        authors: entry.authors,
        ...(entry.severity === undefined ? {} : { severity: entry.severity }),
      },
    };
  }

  record(fields: FilterFields, stamp: FileStamp): void {
    const { info } = fields;
    this.entries.set(resolve(fields.file), {
      stamp: stampOf(stamp),
      id: fields.id,
      protocol: fields.protocol,
      tags: info.tags,
      authors: info.authors,
      ...(info.severity === undefined ? {} : { severity: info.severity }),
    });
    this.changed = true;
  }

  /** Writes the cache when it changed; a cache that cannot be written is left as it was. */
  async save(): Promise<void> {
    if (!this.changed) return;
    const temporary = `${this.file}.${process.pid}.tmp`;
    const text = JSON.stringify({ version: VERSION, entries: Object.fromEntries(this.entries) });
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, this.file);
      this.changed = false;
    } catch {
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }
}

function stampOf(stamp: FileStamp): string {
  return `${stamp.size}:${stamp.mtimeMs}:${stamp.ctimeMs}`;
}

/** The entries of a cache file; none when any part of it is not what {@link MetadataCache.save} writes. */
function entriesOf(text: string): Map<string, Entry> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (!isRecord(parsed) || parsed.version !== VERSION || !isRecord(parsed.entries)) return new Map();
  const entries = new Map<string, Entry>();
  for (const [file, entry] of Object.entries(parsed.entries)) {
    if (!isEntry(entry)) return new Map();
    entries.set(file, entry);
  }
  return entries;
}

function isEntry(value: unknown): value is Entry {
  if (!isRecord(value)) return false;
  const { stamp, id, protocol, tags, authors, severity } = value;
  return (
    typeof stamp === 'string' &&
    typeof id === 'string' &&
    typeof protocol === 'string' &&
    isTextList(tags) &&
    isTextList(authors) &&
    (severity === undefined || (typeof severity === 'string' && isSeverity(severity)))
  );
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
