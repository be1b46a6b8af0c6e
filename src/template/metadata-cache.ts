/**
 * The fields the filters look at, remembered per template file between scans, so that a filtered
 * selection over a whole library opens only the files it takes. An entry holds for the file while
 * its size, modification and change times are those it was read with. The cache is an
 * optimisation, never trusted blindly: a file that cannot be read or does not hold what this
 * version writes is ignored (and rewritten); it is written to a temporary file and renamed over the
 * old one, so a reader never sees half of it.
 */
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { isSeverity, type Severity } from '../event/index.js';
import { isRecord, isTextList, readCacheEntries, writeCacheEntries } from './cache-file.js';
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
    return new MetadataCache(file, await readCacheEntries(file, VERSION, isEntry));
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
    if (await writeCacheEntries(this.file, VERSION, this.entries)) this.changed = false;
  }
}

function stampOf(stamp: FileStamp): string {
  return `${stamp.size}:${stamp.mtimeMs}:${stamp.ctimeMs}`;
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
