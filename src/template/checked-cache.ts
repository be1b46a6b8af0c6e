/**
 * Templates that compiled, remembered between scans by the SHA-256 of their text: a library loaded
 * again is read and hashed, not parsed and compiled again, and each template is compiled when its
 * runs start (as {@link DeferredTemplate} does for every template). Only a template that compiled
 * without reading a payload file is remembered, so that what is remembered depends on its text
 * alone. The cache is an optimisation, never trusted blindly: a template is compiled again from its
 * text before it runs, so an entry from an older keyhole can only make a run fail with a message,
 * never run something unchecked; a file that does not hold what this version writes is ignored
 * (and rewritten); it is written to a temporary file and renamed over the old one.
 */
import { createHash } from 'node:crypto';
import type { Diagnostic } from '../source/index.js';
import { isRecord, isTextList, readCacheEntries, writeCacheEntries } from './cache-file.js';
import type { TemplateSummary } from './deferred.js';
import type { TemplateInfo } from './model.js';

const VERSION = 1;

/** Past this many entries, a save keeps only those used since the cache was opened. */
const MAX_ENTRIES = 50_000;

/** A warning of a remembered template, without its file (the same text may be in several). */
type StoredWarning = Omit<Diagnostic, 'file'>;

interface Entry {
  readonly id: string;
  readonly info: TemplateInfo;
  readonly selfContained: boolean;
  readonly requestCount: number;
  readonly writesOastName: boolean;
  readonly warnings: readonly StoredWarning[];
}

/** A remembered template: its summary and its warnings, for the file it was found in now. */
export interface CheckedTemplate {
  readonly summary: TemplateSummary;
  readonly warnings: readonly Diagnostic[];
}

export class CheckedCache {
  private changed = false;
  private readonly used = new Set<string>();

  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, Entry>,
  ) {}

  /** The cache kept in `file`; empty when there is none or it cannot be read as one. */
  static async open(file: string): Promise<CheckedCache> {
    return new CheckedCache(file, await readCacheEntries(file, VERSION, isEntry));
  }

  /** The key of a template's text. */
  static keyOf(text: string): string {
    return createHash('sha256').update(text).digest('base64');
  }

  /** The template of this text as it compiled before, for `file`; undefined when not remembered. */
  lookup(key: string, file: string): CheckedTemplate | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.used.add(key);
    const { warnings, ...summary } = entry;
    return { summary: { ...summary, file }, warnings: warnings.map((w) => ({ ...w, file })) };
  }

  record(key: string, summary: TemplateSummary, warnings: readonly Diagnostic[]): void {
    const { file: _, ...kept } = summary;
    const stored = warnings.map(({ file: _file, ...rest }) => rest);
    this.entries.set(key, { ...kept, warnings: stored });
    this.used.add(key);
    this.changed = true;
  }

  /** Writes the cache when it changed; a cache that cannot be written is left as it was. */
  async save(): Promise<void> {
    if (!this.changed) return;
    if (this.entries.size > MAX_ENTRIES)
      for (const key of [...this.entries.keys()]) if (!this.used.has(key)) this.entries.delete(key);
    if (await writeCacheEntries(this.file, VERSION, this.entries)) this.changed = false;
  }
}

function isEntry(value: unknown): value is Entry {
  if (!isRecord(value)) return false;
  const { id, info, selfContained, requestCount, writesOastName, warnings } = value;
  return (
    typeof id === 'string' &&
    isRecord(info) &&
    typeof info.name === 'string' &&
    isTextList(info.tags) &&
    isTextList(info.authors) &&
    isTextList(info.references) &&
    typeof selfContained === 'boolean' &&
    typeof requestCount === 'number' &&
    typeof writesOastName === 'boolean' &&
    Array.isArray(warnings) &&
    warnings.every(isWarning)
  );
}

function isWarning(value: unknown): value is StoredWarning {
  return (
    isRecord(value) &&
    (value.severity === 'warning' || value.severity === 'error') &&
    typeof value.line === 'number' &&
    typeof value.col === 'number' &&
    typeof value.path === 'string' &&
    typeof value.message === 'string'
  );
}
