/**
 * Loading a selection of templates from files and folders: each file is read, the fields the
 * filters look at are taken from its lines (or its id and info blocks), and only the templates the
 * filters take are parsed whole and compiled.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Diagnostics, type ParsedSource, sortDiagnostics } from '../source/index.js';
import { CheckedCache } from './checked-cache.js';
import { DeferredTemplate, summaryOf, type TemplateSummary } from './deferred.js';
import {
  listTemplateFiles,
  payloadFileReader,
  readListedTemplateText,
  readTemplateText,
  rememberedFileChecks,
} from './load.js';
import { type FileStamp, MetadataCache } from './metadata-cache.js';
import { parseTemplateSource, parseTemplateText, type TemplateResult } from './parse.js';
import type { PayloadFileReader } from './payloads.js';
import { readQuickFields } from './quick-metadata.js';
import {
  conditionsHold,
  type DefaultExclusions,
  excludedByDefault,
  type FilterFields,
  filterTakes,
  readHeadMetadata,
  readMetadata,
  type TemplateFilter,
} from './select.js';

/** A template file and how it was given. */
export interface TemplateFile {
  readonly file: string;
  /** Named by itself (`-t login.yaml`) rather than found in a folder. */
  readonly named: boolean;
  /** Where its payload files are looked up, upwards from its folder. */
  readonly root: string;
}

/**
 * A template the filters took (or whose metadata could not be read), and how it was given. One that
 * compiles is kept as a {@link DeferredTemplate}: checked, and compiled again when it runs.
 */
export type SelectedResult = SelectedOne & { readonly named: boolean };

type SelectedOne =
  | Exclude<TemplateResult, { status: 'ok' }>
  | (Omit<Extract<TemplateResult, { status: 'ok' }>, 'template'> & { readonly template: DeferredTemplate });

export interface Selection {
  /** In the order the paths gave them; each file once. */
  readonly results: readonly SelectedResult[];
  /** Template files the filters left out. */
  readonly filteredOut: number;
  /** Template files the filters took and the default exclusions left out. */
  readonly leftOutByDefault: number;
  /** Templates left out because an earlier one has their id (nuclei runs the first it loads). */
  readonly duplicates: readonly DuplicateId[];
}

export interface DuplicateId {
  readonly id: string;
  /** The template kept: the first with the id, in the order the paths gave them. */
  readonly kept: string;
  readonly dropped: string;
}

export interface SelectOptions {
  readonly filter: TemplateFilter;
  /** The templates directory: payload files of the templates under it are looked up up to it. */
  readonly templatesDir?: string | undefined;
  readonly defaults?: DefaultExclusions | undefined;
  /**
   * Where the filters' fields of each file are remembered between selections (see
   * {@link MetadataCache}); without one, every file is read to judge it.
   */
  readonly cacheFile?: string | undefined;
  /**
   * Where the templates that compiled are remembered by the hash of their text (see
   * {@link CheckedCache}); without one, every template taken is parsed and compiled.
   */
  readonly checkedCacheFile?: string | undefined;
}

interface Caches {
  readonly metadata: MetadataCache | undefined;
  readonly checked: CheckedCache | undefined;
  /** Whether a path is a file, asked once per path in a selection (payload files are looked up). */
  readonly isFileAt: (path: string) => boolean;
}

/** Files read at once: enough to keep the disk busy, few enough not to hold thousands of texts. */
const READ_AHEAD = 32;

/**
 * The templates under `paths` (files, or folders searched recursively) that the filter takes. A
 * file whose id or info cannot be read is kept, as an error result: the filters cannot judge it.
 */
export async function selectTemplates(paths: readonly string[], options: SelectOptions): Promise<Selection> {
  const files = await templateFiles(paths, options.templatesDir);
  const caches: Caches = {
    metadata: options.cacheFile === undefined ? undefined : await MetadataCache.open(options.cacheFile),
    checked:
      options.checkedCacheFile === undefined ? undefined : await CheckedCache.open(options.checkedCacheFile),
    isFileAt: rememberedFileChecks(),
  };
  const results: (SelectedResult | undefined)[] = new Array(files.length);
  const counts = { filteredOut: 0, leftOutByDefault: 0 };
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      const file = files[index] as TemplateFile;
      const result = await selectOne(file, options, caches);
      if (typeof result === 'string') counts[result]++;
      else results[index] = { ...result, named: file.named };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_AHEAD, files.length) }, worker));
  await Promise.all([caches.metadata?.save(), caches.checked?.save()]);
  return { ...withoutDuplicateIds(results.filter((r) => r !== undefined)), ...counts };
}

/** The results less the templates whose id an earlier template has. */
function withoutDuplicateIds(results: readonly SelectedResult[]): {
  results: SelectedResult[];
  duplicates: DuplicateId[];
} {
  const firstFile = new Map<string, string>();
  const kept: SelectedResult[] = [];
  const duplicates: DuplicateId[] = [];
  for (const result of results) {
    if (result.status === 'ok') {
      const { id } = result.template;
      const first = firstFile.get(id);
      if (first !== undefined) {
        duplicates.push({ id, kept: first, dropped: result.file });
        continue;
      }
      firstFile.set(id, result.file);
    }
    kept.push(result);
  }
  return { results: kept, duplicates };
}

/**
 * The file's size and times, or undefined when it cannot be stat'ed (it is then read, and fails
 * there with its reason). Synchronous: a stat does not wait on what the file holds (a FIFO put
 * where a template was listed answers at once), and over a library of 10,000 files the
 * asynchronous call's own cost was most of a filtered selection from the caches.
 */
function stampOf(file: string): FileStamp | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

async function selectOne(
  source: TemplateFile,
  options: SelectOptions,
  caches: Caches,
): Promise<SelectedOne | 'filteredOut' | 'leftOutByDefault'> {
  const { file } = source;
  const { filter, defaults } = options;
  const cache = caches.metadata;
  const judged = !isEmpty(filter) || (!source.named && defaults !== undefined);
  const stamp = judged && cache !== undefined ? stampOf(file) : undefined;
  const remembered = stamp === undefined ? undefined : cache?.lookup(file, stamp);
  if (remembered !== undefined) {
    const verdict = judge(source, options, remembered);
    if (verdict !== undefined) return verdict;
  }
  const read = await (source.named ? readTemplateText(file) : readListedTemplateText(file));
  if (!read.ok) return fileError(file, read.reason);
  const text = read.text;
  const key = caches.checked === undefined ? undefined : CheckedCache.keyOf(text);
  // A -tc condition reads the compiled template, which the cache does not keep.
  const checked =
    key === undefined || filter.conditions.length > 0 ? undefined : caches.checked?.lookup(key, file);
  if (checked !== undefined) {
    const judging = judged && remembered === undefined;
    const verdict = judging ? judgeRemembered(source, options, checked.summary, stamp, cache) : undefined;
    if (verdict !== undefined) return verdict;
    const template = new DeferredTemplate(checked.summary, text, source.root);
    return { status: 'ok', file, template, diagnostics: checked.warnings };
  }
  let parsed: ParsedSource | undefined;
  if (judged && remembered === undefined) {
    let metadata: FilterFields | undefined = readQuickFields(file, text) ?? readHeadMetadata(file, text);
    if (metadata === undefined) {
      parsed = parseTemplateText(file, text);
      if (parsed.root !== undefined && !parsed.diagnostics.hasErrors)
        metadata = readMetadata(file, text, parsed.root);
    }
    if (metadata !== undefined) {
      if (stamp !== undefined) cache?.record(metadata, stamp);
      const verdict = judge(source, options, metadata);
      if (verdict !== undefined) return verdict;
    }
  }
  const payloadFiles = watchedReader(payloadFileReader(source.root, undefined, caches.isFileAt));
  const result = parseTemplateSource(file, text, parsed ?? parseTemplateText(file, text), {
    payloadFiles,
  });
  if (result.status !== 'ok') return result;
  const summary = summaryOf(result.template);
  // What a template compiled from payload files depends on more than its text.
  if (key !== undefined && !payloadFiles.used) caches.checked?.record(key, summary, result.diagnostics);
  if (!conditionsHold(filter, result.template)) return 'filteredOut';
  return { ...result, template: new DeferredTemplate(summary, text, source.root) };
}

/** {@link judge} on a template the compiled-template cache remembers; its fields go to the metadata cache. */
function judgeRemembered(
  source: TemplateFile,
  options: SelectOptions,
  summary: TemplateSummary,
  stamp: FileStamp | undefined,
  cache: MetadataCache | undefined,
): 'filteredOut' | 'leftOutByDefault' | undefined {
  const metadata = fieldsOf(summary);
  if (stamp !== undefined) cache?.record(metadata, stamp);
  return judge(source, options, metadata);
}

/** A payload file reader that says whether it was asked for a file. */
function watchedReader(reader: PayloadFileReader): PayloadFileReader & { readonly used: boolean } {
  const watched = {
    used: false,
    read: (reference: string, templateFile: string) => {
      watched.used = true;
      return reader.read(reference, templateFile);
    },
  };
  return watched;
}

/** What the filters look at, from a template that compiled (keyhole compiles http templates only). */
function fieldsOf(summary: TemplateSummary): FilterFields {
  const { info } = summary;
  return {
    file: summary.file,
    id: summary.id,
    protocol: 'http',
    info: {
      tags: info.tags,
      authors: info.authors,
      ...(info.severity === undefined ? {} : { severity: info.severity }),
    },
  };
}

/** Why the filters or the default exclusions leave the template out; undefined when they take it. */
function judge(
  source: TemplateFile,
  { filter, defaults }: SelectOptions,
  metadata: FilterFields,
): 'filteredOut' | 'leftOutByDefault' | undefined {
  if (!filterTakes(filter, metadata)) return 'filteredOut';
  if (!source.named && defaults !== undefined && excludedByDefault(defaults, filter, metadata))
    return 'leftOutByDefault';
  return undefined;
}

function isEmpty(filter: TemplateFilter): boolean {
  return (
    filter.tags.length +
      filter.excludeTags.length +
      filter.includeTags.length +
      filter.authors.length +
      filter.ids.length +
      filter.excludeIds.length +
      filter.severities.length +
      filter.excludeSeverities.length +
      filter.protocols.length +
      filter.includePaths.length +
      filter.excludePaths.length ===
    0
  );
}

/** Every template file under `paths`, each once, in the order given (a folder's files sorted). */
async function templateFiles(
  paths: readonly string[],
  templatesDir: string | undefined,
): Promise<TemplateFile[]> {
  const seen = new Set<string>();
  const out: TemplateFile[] = [];
  const add = (file: string, named: boolean, root: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    out.push({
      file,
      named,
      root: templatesDir !== undefined && isInside(file, templatesDir) ? templatesDir : root,
    });
  };
  for (const path of paths) {
    const isFolder = await stat(path).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) add(path, true, dirname(path));
    else for (const file of await listTemplateFiles(path)) add(file, false, path);
  }
  return out;
}

function isInside(file: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(file));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function fileError(file: string, message: string): SelectedOne {
  const diagnostics = new Diagnostics(file);
  diagnostics.error({ line: 1, col: 1, offset: 0 }, [], message);
  return { status: 'error', file, diagnostics: sortDiagnostics(diagnostics.items) };
}
