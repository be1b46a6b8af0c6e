/**
 * Choosing templates from a library the way nuclei's filters do (`-tags`, `-s`, `-id`, …), from a
 * template's metadata alone, so a folder of thousands is narrowed down before any template is
 * compiled. Only `-tc` needs the compiled template (it may ask for HTTP methods or matcher types).
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CompiledExpression, DslValue } from '../dsl/index.js';
import type { Severity } from '../event/index.js';
import { Diagnostics, formatOf, type MapNode, type SourceNode } from '../source/index.js';
import { ParseContext } from './context.js';
import { decodeId, decodeInfo } from './info.js';
import type { MetadataValue, TemplateInfo } from './model.js';
import { type ParsedTemplate, parseTemplateText } from './parse.js';

/** The protocols nuclei templates are written for, by the key that holds their requests. */
const PROTOCOL_KEYS: Readonly<Record<string, string>> = {
  http: 'http',
  requests: 'http',
  dns: 'dns',
  file: 'file',
  network: 'network',
  tcp: 'network',
  headless: 'headless',
  ssl: 'ssl',
  websocket: 'websocket',
  whois: 'whois',
  code: 'code',
  javascript: 'javascript',
  workflows: 'workflow',
};

/** nuclei's protocol type names (`-pt`). */
export const PROTOCOL_TYPES = [
  'http',
  'dns',
  'file',
  'network',
  'headless',
  'ssl',
  'websocket',
  'whois',
  'code',
  'javascript',
  'workflow',
] as const;

/** What the filters look at: a template's id, info block and protocol, read without compiling it. */
export interface TemplateMetadata {
  readonly file: string;
  readonly id: string;
  readonly info: TemplateInfo;
  /** `http`, `dns`, …; empty when the template names no protocol nuclei knows. */
  readonly protocol: string;
}

/** What the filters other than `-tc` look at. */
export type FilterFields = Pick<TemplateMetadata, 'file' | 'id' | 'protocol'> & {
  readonly info: Pick<TemplateInfo, 'tags' | 'authors' | 'severity'>;
};

/**
 * The filters of a scan, as nuclei combines them: a template is taken when a path of `includePaths`
 * or a tag of `includeTags` forces it in; otherwise when nothing excludes it (`excludePaths`,
 * `excludeTags`, `excludeIds`, `excludeSeverities`) and it matches every kind of inclusion given
 * (one of the `authors`, one of the `tags`, one of the `ids`, one of the `severities`, one of the
 * `protocols`). Values are lower-cased; ids may be globs (`*`, `?`, `[…]`).
 */
export interface TemplateFilter {
  readonly tags: readonly string[];
  readonly excludeTags: readonly string[];
  readonly includeTags: readonly string[];
  readonly authors: readonly string[];
  readonly ids: readonly string[];
  readonly excludeIds: readonly string[];
  readonly severities: readonly Severity[];
  readonly excludeSeverities: readonly Severity[];
  readonly protocols: readonly string[];
  /** Absolute paths of files or folders. */
  readonly includePaths: readonly string[];
  readonly excludePaths: readonly string[];
  /** `-tc`: every one must be true for the template's metadata. */
  readonly conditions: readonly CompiledExpression[];
}

export const NO_FILTER: TemplateFilter = {
  tags: [],
  excludeTags: [],
  includeTags: [],
  authors: [],
  ids: [],
  excludeIds: [],
  severities: [],
  excludeSeverities: [],
  protocols: [],
  includePaths: [],
  excludePaths: [],
  conditions: [],
};

/**
 * What nuclei leaves out of a run unless asked (nuclei-templates' `.nuclei-ignore`): templates with
 * these tags, and these files or folders. Applied to templates found in folders, not to a file
 * named by itself; `-itags` and `-it` bring them back.
 */
export interface DefaultExclusions {
  readonly tags: readonly string[];
  /** Absolute paths of files or folders. */
  readonly paths: readonly string[];
}

/** Whether the default exclusions leave the template out, given what the filter forces in. */
export function excludedByDefault(
  defaults: DefaultExclusions,
  filter: TemplateFilter,
  template: FilterFields,
): boolean {
  if (isForcedIn(filter, template)) return false;
  return (
    defaults.tags.some((tag) => template.info.tags.includes(tag)) ||
    defaults.paths.some((path) => isUnder(template.file, path))
  );
}

/** The id, info and protocol of a parsed template file; undefined when its id or info cannot be read. */
export function readMetadata(file: string, text: string, root: SourceNode): TemplateMetadata | undefined {
  if (root.kind !== 'map') return undefined;
  const ctx = new ParseContext(file, text, new Diagnostics(file));
  const id = decodeId(ctx, entryOf(root, 'id'), root);
  const info = decodeInfo(ctx, entryOf(root, 'info'), root);
  if (id === undefined || info === undefined) return undefined;
  return { file, id, info, protocol: protocolOf(root) };
}

/**
 * The metadata read from the `id:` and `info:` blocks alone (every other line blanked, so positions
 * stay), which is a small part of most templates; undefined when that does not parse on its own
 * (JSON, anchors shared with other blocks, …) and the whole file must be parsed.
 */
export function readHeadMetadata(file: string, text: string): TemplateMetadata | undefined {
  if (formatOf(file) === 'json') return undefined;
  let keep = false;
  const keys: string[] = [];
  const head = text
    .split('\n')
    .map((line) => {
      const key = /^([^\s#][^:]*):/.exec(line)?.[1];
      if (key !== undefined) {
        keys.push(key.trim());
        keep = key === 'id' || key === 'info';
      } else if (/^[^\s#]/.test(line)) keep = false;
      return keep ? line : '';
    })
    .join('\n');
  const parsed = parseTemplateText(file, head);
  if (parsed.root === undefined || parsed.diagnostics.hasErrors) return undefined;
  const metadata = readMetadata(file, head, parsed.root);
  return metadata === undefined ? undefined : { ...metadata, protocol: protocolOfKeys(keys) };
}

function entryOf(map: MapNode, key: string) {
  return map.entries.find((entry) => entry.key.text === key);
}

function protocolOf(map: MapNode): string {
  return protocolOfKeys(map.entries.map((entry) => entry.key.text));
}

/** The protocol of a template whose top-level keys are these, in order. */
export function protocolOfKeys(keys: readonly string[]): string {
  for (const key of keys) {
    const protocol = PROTOCOL_KEYS[key];
    if (protocol !== undefined) return protocol;
  }
  return '';
}

/** Whether the metadata filters take the template (every filter but `-tc`). */
export function filterTakes(filter: TemplateFilter, template: FilterFields): boolean {
  if (isForcedIn(filter, template)) return true;
  if (isExcluded(filter, template)) return false;
  return matchesInclusions(filter, template);
}

function isForcedIn(filter: TemplateFilter, template: FilterFields): boolean {
  return (
    filter.includePaths.some((path) => isUnder(template.file, path)) ||
    filter.includeTags.some((tag) => template.info.tags.includes(tag))
  );
}

function isExcluded(filter: TemplateFilter, template: FilterFields): boolean {
  const { info } = template;
  return (
    filter.excludePaths.some((path) => isUnder(template.file, path)) ||
    filter.excludeTags.some((tag) => info.tags.includes(tag)) ||
    filter.excludeIds.some((pattern) => idMatches(pattern, template.id)) ||
    (info.severity !== undefined && filter.excludeSeverities.includes(info.severity))
  );
}

function matchesInclusions(filter: TemplateFilter, template: FilterFields): boolean {
  const { info } = template;
  const oneOf = <T>(wanted: readonly T[], has: (value: T) => boolean) =>
    wanted.length === 0 || wanted.some(has);
  return (
    oneOf(filter.authors, (author) => info.authors.includes(author)) &&
    oneOf(filter.tags, (tag) => info.tags.includes(tag)) &&
    oneOf(filter.ids, (pattern) => idMatches(pattern, template.id)) &&
    oneOf(filter.severities, (severity) => info.severity === severity) &&
    oneOf(filter.protocols, (protocol) => template.protocol === protocol)
  );
}

/**
 * A path given to `-it`/`-et` takes the file itself, or every file under the folder. A path with
 * `*`, `?` or `[…]` is a glob (`**` crosses folders) over the file and the folders above it.
 */
function isUnder(file: string, path: string): boolean {
  if (isGlob(path)) return pathGlob(resolve(path)).test(resolve(file));
  const rel = relative(resolve(path), resolve(file));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether an `-it`/`-et` path is a glob. */
export function isGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

const pathGlobs = new Map<string, RegExp>();

function pathGlob(pattern: string): RegExp {
  let compiled = pathGlobs.get(pattern);
  if (compiled === undefined) {
    const parts = pattern.split('**').map(globSource);
    compiled = new RegExp(`^${parts.join('.*')}(?:/.*)?$`, 's');
    pathGlobs.set(pattern, compiled);
  }
  return compiled;
}

/** nuclei compares ids lower-cased, as Go's `filepath.Match` globs. */
export function idMatches(pattern: string, id: string): boolean {
  return globRegExp(pattern.toLowerCase()).test(id.toLowerCase());
}

const globs = new Map<string, RegExp>();

function globRegExp(pattern: string): RegExp {
  let compiled = globs.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(`^${globSource(pattern)}$`, 's');
    globs.set(pattern, compiled);
  }
  return compiled;
}

function globSource(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return '(?!)';
      const body = pattern.slice(i + 1, end);
      out += `[${body.startsWith('^') ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
      i = end;
    } else out += c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return out;
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]]/g, '\\$&');
}

/** Whether every `-tc` condition is true for the template; one that cannot be evaluated is false. */
export function conditionsHold(filter: TemplateFilter, template: ParsedTemplate): boolean {
  if (filter.conditions.length === 0) return true;
  const scope = conditionScope(template);
  return filter.conditions.every((condition) => {
    try {
      return condition.evaluate(scope) === true;
    } catch {
      return false;
    }
  });
}

/** The variables a `-tc` condition reads, as nuclei names them. */
export function conditionScope(template: ParsedTemplate): ReadonlyMap<string, DslValue> {
  const { info } = template;
  const scope = new Map<string, DslValue>([
    ['id', template.id],
    ['name', info.name],
    ['description', info.description ?? ''],
    ['tags', info.tags],
    ['authors', info.authors],
    ['severity', info.severity ?? ''],
    ['protocol', 'http'],
  ]);
  for (const [key, value] of Object.entries(info.metadata ?? {})) {
    const dsl = dslValue(value);
    if (dsl !== undefined) scope.set(key.replaceAll('-', '_'), dsl);
  }
  const c = info.classification;
  if (c !== undefined) {
    scope.set('cvss_metrics', c['cvss-metrics'] ?? '');
    scope.set('cvss_score', c['cvss-score'] ?? 0);
    scope.set('cve_id', c['cve-id'] ?? []);
    scope.set('cwe_id', c['cwe-id'] ?? []);
    scope.set('cpe', c.cpe ?? '');
    scope.set('epss_score', c['epss-score'] ?? 0);
    scope.set('epss_percentile', c['epss-percentile'] ?? 0);
  }
  scope.set('http_method', unique(template.http.map(methodOf)));
  scope.set(
    'body',
    unique(template.http.map(bodyOf).filter((b) => b !== ''))
      .join('\n')
      .toLowerCase(),
  );
  scope.set(
    'matcher_type',
    unique(template.http.flatMap((b) => b.operators.model.matchers.map((m) => m.type))),
  );
  scope.set(
    'extractor_type',
    unique(template.http.flatMap((b) => b.operators.model.extractors.map((e) => e.type))),
  );
  return scope;
}

function methodOf(block: ParsedTemplate['http'][number]): string {
  if (block.requests.kind === 'path') return block.requests.method;
  return /^\s*([A-Za-z]+)/.exec(block.requests.raw[0]?.template.text ?? '')?.[1]?.toUpperCase() ?? '';
}

function bodyOf(block: ParsedTemplate['http'][number]): string {
  if (block.requests.kind === 'path') return block.body?.template.text ?? '';
  const raw = block.requests.raw[0]?.template.text ?? '';
  const split = raw.indexOf('\r\n\r\n');
  return split < 0 ? '' : raw.slice(split + 4).trim();
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}

function dslValue(value: MetadataValue): DslValue | undefined {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = (value as readonly MetadataValue[]).map(dslValue);
    return items.every((item) => item !== undefined) ? (items as DslValue[]) : undefined;
  }
  return undefined;
}
