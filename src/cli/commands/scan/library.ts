/**
 * The templates a scan runs: the templates directory, the `-t` paths resolved in it, the filters,
 * and what is said about the templates left out (errors, unsupported features, default exclusions).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { type CompiledExpression, compileExpression } from '../../../dsl/index.js';
import { formatDiagnostic, parseSource, printable, type SourceNode } from '../../../source/index.js';
import {
  type DefaultExclusions,
  type DeferredTemplate,
  isGlob,
  readTemplateText,
  type SelectedResult,
  type Selection,
  selectTemplates,
  type TemplateFilter,
} from '../../../template/index.js';
import { UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { isFile } from '../../shared/files.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import { table } from '../../shared/table.js';
import { plural } from '../../shared/words.js';
import type { ScanConfig } from './config.js';
import type { SelectionConfig } from './filters.js';

/** Where the templates come from: the templates directory (when there is one) and the paths to load. */
export interface TemplateSources {
  readonly templatesDir: string | undefined;
  /** Absolute paths of files and folders. */
  readonly paths: readonly string[];
}

/** The templates a scan runs, and how many were skipped for unsupported features or errors. */
export interface ChosenTemplates {
  /** Checked, and compiled again as their runs start. */
  readonly templates: DeferredTemplate[];
  readonly unsupported: number;
  readonly broken: number;
}

/**
 * The templates directory: `--templates-dir` (or `-ud`), else `$KEYHOLE_TEMPLATES`, else
 * `~/nuclei-templates` when it exists. One that was named must exist.
 */
export async function templatesDirectory(config: ScanConfig, io: CliIo): Promise<string | undefined> {
  const flag = config.selection.templatesDir;
  const env = nonEmpty(io.env.KEYHOLE_TEMPLATES);
  const named = flag ?? env;
  if (named !== undefined) {
    const dir = resolve(io.cwd, expandHome(named, io));
    if (!(await isFolder(dir))) {
      const source = flag !== undefined ? `--templates-dir ${flag}` : `$KEYHOLE_TEMPLATES (${env})`;
      throw new UserError(
        `${source}: no such folder; give the folder of your templates, such as a nuclei-templates checkout`,
      );
    }
    return dir;
  }
  const home = nonEmpty(io.env.HOME);
  if (home === undefined) return undefined;
  const fallback = join(home, 'nuclei-templates');
  return (await isFolder(fallback)) ? fallback : undefined;
}

/** `-t` paths, absolute: as given from the current folder, else inside the templates directory. */
export async function templateSources(config: ScanConfig, io: CliIo): Promise<TemplateSources> {
  const templatesDir = await templatesDirectory(config, io);
  if (config.templates.length === 0) {
    if (templatesDir === undefined) {
      throw new UserError(
        'no templates: give a file or folder with -t PATH, or a templates folder with --templates-dir DIR (or $KEYHOLE_TEMPLATES)',
      );
    }
    return { templatesDir, paths: [templatesDir] };
  }
  const paths = await Promise.all(config.templates.map((path) => locate(path, io, templatesDir)));
  return { templatesDir, paths };
}

/** A path from the current folder when it exists there, else from the templates directory. */
async function locate(path: string, io: CliIo, templatesDir: string | undefined): Promise<string> {
  const here = resolve(io.cwd, path);
  // A glob is located by the folders before its first pattern.
  const fixed = isGlob(path) ? path.slice(0, path.search(/[*?[]/)).replace(/[^/]*$/, '') || '.' : path;
  if (templatesDir === undefined || isAbsolute(path) || (await exists(resolve(io.cwd, fixed)))) return here;
  return (await exists(resolve(templatesDir, fixed))) ? resolve(templatesDir, path) : here;
}

/** The filters of the scan, with `-it`/`-et` paths resolved as `-t` paths are. */
export async function templateFilter(
  selection: SelectionConfig,
  io: CliIo,
  templatesDir: string | undefined,
): Promise<TemplateFilter> {
  const paths = (list: readonly string[]) => Promise.all(list.map((p) => locate(p, io, templatesDir)));
  return {
    tags: await valuesOrFiles(selection.tags, '-tags', io),
    excludeTags: await valuesOrFiles(selection.excludeTags, '-etags', io),
    includeTags: await valuesOrFiles(selection.includeTags, '-itags', io),
    authors: await valuesOrFiles(selection.authors, '-a/-author', io),
    ids: await valuesOrFiles(selection.ids, '-id/-template-id', io),
    excludeIds: await valuesOrFiles(selection.excludeIds, '-eid/-exclude-id', io),
    severities: selection.severities,
    excludeSeverities: selection.excludeSeverities,
    protocols: selection.protocols,
    includePaths: await paths(selection.includePaths),
    excludePaths: await paths(selection.excludePaths),
    conditions: selection.conditions.map((c) => compileExpression(c) as CompiledExpression),
  };
}

/**
 * A filter's values, lower-cased; a value naming a file (from the current folder) stands for the
 * values on its lines, each line comma-separated as the flag's own value, as nuclei reads them.
 */
async function valuesOrFiles(values: readonly string[], flag: string, io: CliIo): Promise<string[]> {
  const out: string[] = [];
  for (const value of values) {
    const path = resolve(io.cwd, value);
    if (!(await isFile(path))) {
      out.push(value.toLowerCase());
      continue;
    }
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UserError(
        `${flag} ${value}: the file cannot be read (${error.code ?? error.message}); give values or a readable file of values, one a line`,
      );
    });
    for (const line of text.split(/\r?\n/))
      for (const item of line.split(',')) if (item.trim() !== '') out.push(item.trim().toLowerCase());
  }
  return out;
}

/** The templates the flags select, loaded; what is left out is said on stderr. */
export async function chooseTemplates(config: ScanConfig, io: CliIo, output: ScanOutput) {
  const sources = await templateSources(config, io);
  const selection = await selectFrom(sources, config.selection, io, output);
  return { sources, selection, ...(await runnable(selection, config, output)) };
}

async function selectFrom(
  sources: TemplateSources,
  config: SelectionConfig,
  io: CliIo,
  output: ScanOutput,
): Promise<Selection> {
  const filter = await templateFilter(config, io, sources.templatesDir);
  const otherProtocols = filter.protocols.filter((p) => p !== 'http');
  if (otherProtocols.length > 0) {
    output.info(`keyhole runs http templates only: -pt ${otherProtocols.join(',')} selects nothing`);
  }
  if (filter.protocols.length > 0 && otherProtocols.length === filter.protocols.length) {
    throw new UserError(`no template matches the filters: keyhole runs http templates only; use -pt http`);
  }
  const defaults = await defaultExclusions(sources.templatesDir, output);
  const selection = await selectTemplates(sources.paths, {
    filter: { ...filter, protocols: filter.protocols.filter((p) => p === 'http') },
    templatesDir: sources.templatesDir,
    defaults,
    cacheFile: cacheFile('template-metadata', sources.paths, io),
    checkedCacheFile: cacheFile('template-checked', sources.paths, io),
  });
  for (const { id, kept, dropped } of selection.duplicates) {
    output.warn(
      `skipped ${dropped}: its id "${id}" is the id of ${kept}, which runs; give each template an id of its own`,
    );
  }
  if (selection.leftOutByDefault > 0 && defaults !== undefined) {
    output.info(
      `left out ${plural(selection.leftOutByDefault, 'template')} that ${ignoreFileOf(sources.templatesDir ?? '')} leaves out by default` +
        `${defaults.tags.length > 0 ? ` (tags ${defaults.tags.join(', ')})` : ''}; -itags TAG or -it PATH runs them`,
    );
  }
  return selection;
}

/** The supported templates; templates with errors stop the scan or are skipped, unsupported ones are skipped. */
async function runnable(
  selection: Selection,
  config: ScanConfig,
  output: ScanOutput,
): Promise<ChosenTemplates> {
  const { results } = selection;
  const broken = results.filter((r) => r.status === 'error');
  const fatal = config.selection.strict ? broken : broken.filter((r) => r.named);
  if (fatal.length > 0) {
    for (const result of fatal)
      for (const d of result.diagnostics) if (d.severity === 'error') output.fatal(formatDiagnostic(d));
    const count = fatal.length === 1 ? '1 template has errors' : `${fatal.length} templates have errors`;
    throw new UserError(`${count}; fix them or leave them out (keyhole templates validate lists them)`);
  }
  for (const result of broken) output.warn(`skipped ${firstError(result)}`);
  const templates: DeferredTemplate[] = [];
  for (const result of results) if (result.status === 'ok') templates.push(result.template);
  const unsupported = results.filter((r) => r.status === 'unsupported');
  reportUnsupported(unsupported, output);
  if (templates.length === 0) throw new UserError(nothingToRun(selection, config));
  return { templates, unsupported: unsupported.length, broken: broken.length };
}

function nothingToRun(selection: Selection, config: ScanConfig): string {
  if (selection.filteredOut > 0) {
    return `no template matches the filters (${plural(selection.filteredOut, 'template')} left out by them); check the values of ${filterFlags(config).join(', ')}`;
  }
  if (selection.leftOutByDefault > 0) {
    return 'every template selected is left out by default (see the notice above); -itags TAG or -it PATH runs them';
  }
  if (selection.results.length === 0) {
    return `no templates found in ${config.templates.length > 0 ? config.templates.join(', ') : 'the templates folder'} (templates are .yaml or .yml files)`;
  }
  return 'none of the templates can run (see the notices above)';
}

function filterFlags(config: ScanConfig): string[] {
  const s = config.selection;
  const given: [string, number][] = [
    ['-tags', s.tags.length],
    ['-etags', s.excludeTags.length],
    ['-a', s.authors.length],
    ['-id', s.ids.length],
    ['-eid', s.excludeIds.length],
    ['-s', s.severities.length],
    ['-es', s.excludeSeverities.length],
    ['-pt', s.protocols.length],
    ['-tc', s.conditions.length],
    ['-et', s.excludePaths.length],
  ];
  const flags = given.filter(([, n]) => n > 0).map(([flag]) => flag);
  return flags.length > 0 ? flags : ['-t'];
}

/** One line for a template skipped for its errors: the first error, and how many more. */
function firstError(result: SelectedResult): string {
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  const more = errors.length > 1 ? ` (+${plural(errors.length - 1, 'more error')})` : '';
  return first === undefined ? result.file : `${formatDiagnostic(first)}${more}`;
}

/**
 * A file named by itself gets its own line; templates of folders are counted by the feature that
 * stops them, in one line (a library holds hundreds of them).
 */
function reportUnsupported(results: readonly SelectedResult[], output: ScanOutput): void {
  const counts = new Map<string, number>();
  for (const result of results) {
    if (result.status !== 'unsupported') continue;
    if (result.named) {
      const features = [...new Set(result.features.map((f) => f.feature))].join(', ');
      output.warn(`skipped ${result.file}: uses what keyhole does not run yet: ${features}`);
      continue;
    }
    const feature = featureName(result.features[0]?.feature ?? 'unknown');
    counts.set(feature, (counts.get(feature) ?? 0) + 1);
  }
  if (counts.size === 0) return;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const byFeature = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([feature, n]) => `${feature} (${n})`)
    .join(', ');
  output.warn(`skipped ${plural(total, 'template')}: ${byFeature}; keyhole templates validate lists them`);
}

/** `out-of-band testing (interactsh-url)` counts as `out-of-band testing`. */
function featureName(feature: string): string {
  return feature.replace(/\s*\(.*\)$/, '');
}

/** `-tl`: the selected templates, one a line; `-td`: their text. */
export async function showTemplates(
  templates: readonly Pick<DeferredTemplate, 'id' | 'file' | 'info'>[],
  show: 'list' | 'display',
  sources: TemplateSources,
  io: CliIo,
): Promise<void> {
  const sorted = [...templates].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const shown = (file: string) => shownPath(file, sources.templatesDir, io.cwd);
  if (show === 'list') {
    io.stdout.write(
      table(
        ['ID', 'SEVERITY', 'PATH'],
        sorted.map((t) => [t.id, t.info.severity ?? '', shown(t.file)]),
      ),
    );
    return;
  }
  for (const template of sorted) {
    const read = await readTemplateText(template.file);
    const text = read.ok ? read.text : `(${read.reason})\n`;
    io.stdout.write(
      `Template: ${printable(shown(template.file))}\n\n${text}${text.endsWith('\n') ? '' : '\n'}\n`,
    );
  }
}

/** Inside the templates directory, from it (as nuclei lists them); else from the current folder. */
function shownPath(file: string, templatesDir: string | undefined, cwd: string): string {
  for (const base of [templatesDir, cwd]) {
    if (base === undefined) continue;
    const rel = relative(base, file);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
  }
  return file;
}

/**
 * nuclei-templates' `.nuclei-ignore`: the tags and files nuclei leaves out of a run unless asked.
 * A file that cannot be read as one is said once, and leaves nothing out.
 */
async function defaultExclusions(
  templatesDir: string | undefined,
  output: ScanOutput,
): Promise<DefaultExclusions | undefined> {
  if (templatesDir === undefined) return undefined;
  const file = ignoreFileOf(templatesDir);
  if (!(await exists(file))) return undefined;
  const read = await readTemplateText(file);
  const parsed = read.ok ? parseSource(file, read.text, 'yaml') : undefined;
  const root = parsed?.root;
  if (!read.ok || parsed === undefined || parsed.diagnostics.hasErrors || root?.kind !== 'map') {
    output.warn(`${file}: cannot be read as a list of tags and files to leave out; it leaves nothing out`);
    return undefined;
  }
  const list = (key: string) => textsOf(root.entries.find((e) => e.key.text === key)?.value);
  return {
    tags: list('tags').map((t) => t.toLowerCase()),
    paths: list('files').map((f) => resolve(templatesDir, f)),
  };
}

/**
 * Where what was learnt of the templates under `paths` is remembered between scans (the filters'
 * fields of each file, the templates that compiled): `$XDG_CACHE_HOME/keyhole`, else
 * `~/.cache/keyhole`, one file of each kind per set of paths (a library, or the folders given with
 * -t); none without either variable.
 */
function cacheFile(kind: string, paths: readonly string[], io: CliIo): string | undefined {
  const xdg = nonEmpty(io.env.XDG_CACHE_HOME);
  const home = nonEmpty(io.env.HOME);
  const base = xdg ?? (home === undefined ? undefined : join(home, '.cache'));
  if (base === undefined || !isAbsolute(base)) return undefined;
  const key = createHash('sha256').update(paths.join('\0')).digest('hex').slice(0, 16);
  return join(base, 'keyhole', `${kind}-${key}.json`);
}

function ignoreFileOf(templatesDir: string): string {
  return join(templatesDir, '.nuclei-ignore');
}

function textsOf(node: SourceNode | undefined): string[] {
  if (node?.kind !== 'seq') return [];
  return node.items.flatMap((item) =>
    item.kind === 'scalar' && item.text.trim() !== '' ? [item.text.trim()] : [],
  );
}

function expandHome(path: string, io: CliIo): string {
  const home = nonEmpty(io.env.HOME);
  if (home === undefined) return path;
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
