import {
  type Diagnostic,
  Diagnostics,
  formatOf,
  type MapEntry,
  type MapNode,
  type ParsedSource,
  type Path,
  type Position,
  parseSource,
  type ScalarNode,
  type SourceNode,
  sortDiagnostics,
} from '../source/index.js';
import { parseTargetUrl, type TargetUrl } from '../targets/index.js';
import { ParseContext, type UnsupportedFeature } from './context.js';
import { flowBlockIndex, parseFlow, resolveFlow } from './flow.js';
import { analyseFlowScript } from './flow-script.js';
import { decodeId, decodeInfo } from './info.js';
import { HTTP_KEYS, TEMPLATE_KEYS } from './keys.js';
import {
  DEFAULT_MAX_REDIRECTS,
  type Flow,
  type HeaderTemplate,
  type HttpBlock,
  type HttpRequests,
  type PathTemplate,
  type Race,
  type RawRequestTemplate,
  type RedirectPolicy,
  type Template,
  type TemplateText,
  type Variable,
} from './model.js';
import { compileBlockOperators, decodeOperators } from './operators.js';
import { combinationCount, decodePayloads, type PayloadFileReader } from './payloads.js';
import { oastMarkerOffset, positionInScalar } from './placeholders.js';
import { parseRawRequest, RawRequestError } from './raw.js';
import { compileScalar, EMPTY_TEXT } from './texts.js';

/** The outcome of reading one template file. */
export type TemplateResult =
  | {
      readonly status: 'ok';
      readonly file: string;
      readonly template: ParsedTemplate;
      /** Warnings only. */
      readonly diagnostics: readonly Diagnostic[];
    }
  | {
      /** Valid, but uses something keyhole does not run yet: skipped, never run wrongly. */
      readonly status: 'unsupported';
      readonly file: string;
      readonly id?: string;
      readonly features: readonly UnsupportedFeature[];
      readonly diagnostics: readonly Diagnostic[];
    }
  | {
      readonly status: 'error';
      readonly file: string;
      readonly id?: string;
      /** At least one error, sorted by position; warnings included. */
      readonly diagnostics: readonly Diagnostic[];
    };

/** A template as read from its file. */
export interface ParsedTemplate extends Template {
  /** `randstr`, `randstr_1`, …: names that get one random value per template run. */
  readonly randstrNames: readonly string[];
}

export interface ParseOptions {
  /** Reads payload files; without one, a template naming a payload file is an error. */
  readonly payloadFiles?: PayloadFileReader;
}

const PROTOCOL_KEYS = ['http', 'requests'] as const;

/** Parses one template from its text. Never throws: every problem is a positioned diagnostic. */
export function parseTemplate(file: string, text: string, options: ParseOptions = {}): TemplateResult {
  return parseTemplateSource(file, text, parseTemplateText(file, text), options);
}

/** The YAML (or JSON) of a template file, with positions; not yet read as a template. */
export function parseTemplateText(file: string, text: string): ParsedSource {
  return parseSource(file, text, formatOf(file) ?? 'yaml');
}

/** {@link parseTemplate} for text already parsed with {@link parseTemplateText}. */
export function parseTemplateSource(
  file: string,
  text: string,
  parsed: ParsedSource,
  options: ParseOptions = {},
): TemplateResult {
  const diagnostics = new Diagnostics(file);
  for (const d of parsed.diagnostics.items) diagnostics.items.push(d);
  if (parsed.root === undefined) {
    if (!diagnostics.hasErrors)
      diagnostics.error({ line: 1, col: 1, offset: 0 }, [], 'the template file is empty');
    return { status: 'error', file, diagnostics: sortDiagnostics(diagnostics.items) };
  }
  const ctx = new ParseContext(file, text, diagnostics);
  const template = decodeTemplate(ctx, parsed.root, options);
  const sorted = sortDiagnostics(diagnostics.items);
  const id = template.id;
  if (diagnostics.hasErrors || template.value === undefined) {
    if (!diagnostics.hasErrors && ctx.unsupported.length > 0) {
      return {
        status: 'unsupported',
        file,
        ...(id === undefined ? {} : { id }),
        features: ctx.unsupported,
        diagnostics: sorted,
      };
    }
    return { status: 'error', file, ...(id === undefined ? {} : { id }), diagnostics: sorted };
  }
  if (ctx.unsupported.length > 0) {
    return {
      status: 'unsupported',
      file,
      id: template.value.id,
      features: ctx.unsupported,
      diagnostics: sorted,
    };
  }
  return { status: 'ok', file, template: template.value, diagnostics: sorted };
}

function decodeTemplate(
  ctx: ParseContext,
  root: SourceNode,
  options: ParseOptions,
): { id?: string; value?: ParsedTemplate } {
  const map = ctx.decode.map(root, [], 'a template (a mapping with id, info and http)');
  if (map === undefined) return {};
  const fields = ctx.fields(map, [], TEMPLATE_KEYS);
  const id = decodeId(ctx, fields.id, root);
  const info = decodeInfo(ctx, fields.info, root);
  const variables = decodeVariables(ctx, fields.variables);
  const constants = decodeConstants(ctx, fields.constants);
  const selfContained = flag(ctx, fields['self-contained'], ['self-contained']);
  const stopAtFirstMatch = flag(ctx, fields['stop-at-first-match'], ['stop-at-first-match']);

  if (fields.http !== undefined && fields.requests !== undefined) {
    ctx.error(fields.requests.key.pos, ['requests'], 'use "http" or the older "requests", not both');
  }
  const blocksEntry = fields.http ?? fields.requests;
  const blocksKey = fields.http !== undefined ? 'http' : 'requests';
  const blocks: HttpBlock[] = [];
  if (blocksEntry === undefined) {
    if (ctx.unsupported.length === 0) {
      ctx.error(
        map.pos,
        [],
        `the template has no requests; add an "http:" list (known protocols: ${PROTOCOL_KEYS.join(', ')})`,
      );
    }
  } else {
    const seq = ctx.decode.nonEmptyList(blocksEntry.value, [blocksKey], 'a list of HTTP requests');
    seq?.items.forEach((item, index) => {
      const block = decodeBlock(ctx, item, [blocksKey, index], index, selfContained, options);
      if (block !== undefined) blocks.push(block);
    });
  }
  writeOastVariables(blocks, variables);
  const flow = fields.flow === undefined ? undefined : decodeFlow(ctx, fields.flow, blocks);
  const randstrNames = findRandstrNames(ctx.text);
  if (id === undefined || info === undefined || ctx.diagnostics.hasErrors || ctx.unsupported.length > 0) {
    return id === undefined ? {} : { id };
  }
  return {
    id,
    value: {
      file: ctx.file,
      id,
      info,
      variables,
      constants,
      ...(flow === undefined ? {} : { flow }),
      selfContained,
      stopAtFirstMatch,
      http: blocks,
      requestCount: blocks.reduce((sum, b) => sum + b.requestCount, 0),
      randstrNames,
    },
  };
}

function flag(ctx: ParseContext, entry: MapEntry | undefined, path: Path): boolean {
  if (entry === undefined || entry.value.kind === 'null') return false;
  return ctx.decode.bool(entry.value, path) ?? false;
}

function decodeVariables(ctx: ParseContext, entry: MapEntry | undefined): Variable[] {
  if (entry === undefined || entry.value.kind === 'null') return [];
  const map = ctx.decode.map(entry.value, ['variables'], 'a mapping of variable names to values');
  if (map === undefined) return [];
  const out: Variable[] = [];
  for (const variable of map.entries) {
    const name = variable.key.text;
    const path = ['variables', name];
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      ctx.error(
        variable.key.pos,
        path,
        `"${name}" is not a valid variable name; use letters, digits and "_"`,
      );
      continue;
    }
    const node = variable.value;
    if (node.kind === 'null') {
      out.push({ name, template: EMPTY_TEXT, pos: variable.key.pos });
      continue;
    }
    if (node.kind !== 'scalar') {
      ctx.error(node.pos, path, 'a variable holds one text value (it may use {{…}} expressions)');
      continue;
    }
    // `{{interactsh-url}}` in a variable: a callback name per request, as nuclei evaluates it.
    const template = compileScalar(ctx, node, path);
    if (template !== undefined) out.push({ name, template, pos: node.pos, text: node.text });
  }
  return out;
}

/** `constants:` hold one scalar each, taken as written (nuclei neither renders nor overrides them). */
function decodeConstants(ctx: ParseContext, entry: MapEntry | undefined): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  if (entry === undefined || entry.value.kind === 'null') return out;
  const map = ctx.decode.map(entry.value, ['constants'], 'a mapping of constant names to values');
  if (map === undefined) return out;
  for (const constant of map.entries) {
    const name = constant.key.text;
    const path = ['constants', name];
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      ctx.error(
        constant.key.pos,
        path,
        `"${name}" is not a valid constant name; use letters, digits and "_"`,
      );
      continue;
    }
    const node = constant.value;
    if (node.kind === 'null') out.set(name, '');
    else if (node.kind === 'scalar') out.set(name, node.text);
    else ctx.error(node.pos, path, 'a constant holds one value (text or a number), not a list or a mapping');
  }
  return out;
}

function decodeFlow(ctx: ParseContext, entry: MapEntry, blocks: readonly HttpBlock[]): Flow | undefined {
  const node = ctx.decode.scalar(entry.value, ['flow'], 'JavaScript such as "http(1) && http(2)"');
  if (node === undefined) return undefined;
  const source = node.text;
  const ids = blocks.map((b) => b.id);
  const badRef = (what: string, pos: Position): void =>
    ctx.error(
      pos,
      ['flow'],
      `${what} names no request block; the template has ${blocks.length} (http(1) to http(${blocks.length})` +
        `${ids.some((id) => id !== undefined) ? ' or their ids' : ''})`,
    );
  const syntax = parseFlow(source);
  if (syntax !== undefined) {
    const expression = resolveFlow(syntax, ids);
    if (!('bad' in expression)) return { source, expression };
    const ref = expression.bad;
    badRef(ref.kind === 'index' ? `http(${ref.index})` : `http("${ref.id}")`, entry.value.pos);
    return undefined;
  }
  const analysis = analyseFlowScript(source);
  if (analysis.kind === 'syntax-error') {
    ctx.error(
      positionInScalar(node, analysis.offset, ctx.text),
      ['flow'],
      `the flow is not valid JavaScript: ${analysis.message}`,
    );
    return undefined;
  }
  let valid = true;
  for (const call of analysis.calls) {
    const pos = positionInScalar(node, call.offset, ctx.text);
    if (call.protocol !== 'http') {
      ctx.markUnsupported(`flow calling ${call.protocol}()`, pos, ['flow']);
      continue;
    }
    for (const ref of call.refs ?? []) {
      if (flowBlockIndex(ref, ids) !== undefined) continue;
      badRef(`http(${JSON.stringify(ref)})`, pos);
      valid = false;
    }
  }
  return valid ? { source } : undefined;
}

/** Example target used to check the shape of raw requests when the template is read. */
const SHAPE_CHECK_TARGET = parseTargetUrl('https://keyhole.invalid') as TargetUrl;

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'PURGE',
  'DEBUG',
];

function decodeBlock(
  ctx: ParseContext,
  node: SourceNode,
  path: Path,
  index: number,
  templateSelfContained: boolean,
  options: ParseOptions,
): HttpBlock | undefined {
  const map = ctx.decode.map(node, path, 'an HTTP request (a mapping with raw: or path:)');
  if (map === undefined) return undefined;
  const f = ctx.fields(map, path, HTTP_KEYS);
  const unsafe = flag(ctx, f.unsafe, [...path, 'unsafe']);
  const requests = decodeRequests(ctx, map, f, path, unsafe);
  const headers = decodeHeaders(ctx, f.headers, [...path, 'headers']);
  const body = decodeBody(ctx, f.body, [...path, 'body']);
  const operators = compileBlockOperators(ctx, decodeOperators(ctx, f, path));
  const usedIn = usageText(f);
  const payloads = decodePayloads(ctx, f, path, usedIn, options.payloadFiles);
  const id = f.id === undefined ? undefined : ctx.string(f.id.value, [...path, 'id'], 'a request id');
  const threads = optionalInteger(ctx, f.threads, [...path, 'threads'], 0);
  const maxSize = optionalInteger(ctx, f['max-size'], [...path, 'max-size'], 0);
  const redirects = redirectPolicy(ctx, f, path);
  const race = decodeRace(ctx, f, path, threads);
  if (requests === undefined || operators === undefined) return undefined;
  const perCombination = requests.kind === 'raw' ? requests.raw.length : requests.paths.length;
  const requestCount =
    race?.kind === 'count'
      ? race.count
      : payloads === undefined
        ? perCombination
        : combinationCount(payloads) * perCombination;
  const block: HttpBlock = {
    index,
    ...(id === undefined || id.trim() === '' ? {} : { id: id.trim() }),
    pos: map.pos,
    requests,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(payloads === undefined ? {} : { payloads }),
    ...(threads === undefined || threads === 0 ? {} : { threads }),
    ...(race === undefined ? {} : { race }),
    redirects,
    stopAtFirstMatch: flag(ctx, f['stop-at-first-match'], [...path, 'stop-at-first-match']),
    cookieJar: !flag(ctx, f['disable-cookie'], [...path, 'disable-cookie']),
    unsafe,
    skipSecretFile: flag(ctx, f['skip-secret-file'], [...path, 'skip-secret-file']),
    skipVariablesCheck: flag(ctx, f['skip-variables-check'], [...path, 'skip-variables-check']),
    disablePathAutomerge: flag(ctx, f['disable-path-automerge'], [...path, 'disable-path-automerge']),
    selfContained: templateSelfContained || flag(ctx, f['self-contained'], [...path, 'self-contained']),
    ...(maxSize === undefined || maxSize === 0 ? {} : { maxSize }),
    operators,
    requestCount,
    usageText: usedIn,
  };
  // deprecated keys whose behaviour is now the default: read to check their type only
  flag(ctx, f['cookie-reuse'], [...path, 'cookie-reuse']);
  flag(ctx, f['req-condition'], [...path, 'req-condition']);
  return block;
}

type BlockFields = ReturnType<ParseContext['fields']> & Partial<Record<keyof typeof HTTP_KEYS, MapEntry>>;

function decodeRequests(
  ctx: ParseContext,
  map: MapNode,
  f: BlockFields,
  path: Path,
  unsafe: boolean,
): HttpRequests | undefined {
  if (f.raw !== undefined && f.path !== undefined) {
    ctx.warning(
      f.path.key.pos,
      [...path, 'path'],
      '"path:" is ignored: a block with "raw:" runs its raw requests, as nuclei does; move the paths to a block of their own to send them',
    );
  }
  if (f.raw !== undefined) {
    if (f.method !== undefined) {
      ctx.warning(
        f.method.key.pos,
        [...path, 'method'],
        '"method" has no effect on raw requests; the request line gives it',
      );
    }
    const seq = ctx.decode.nonEmptyList(f.raw.value, [...path, 'raw'], 'a list of raw HTTP requests');
    if (seq === undefined) return undefined;
    const raw: RawRequestTemplate[] = [];
    seq.items.forEach((item, i) => {
      const itemPath = [...path, 'raw', i];
      const scalar = ctx.decode.scalar(item, itemPath, 'a raw HTTP request');
      if (scalar === undefined) return;
      const request = compiledScalar(ctx, scalar, itemPath, true);
      if (request === undefined) return;
      const shape = parseRawRequest(request.template.text, SHAPE_CHECK_TARGET, { unsafe });
      if (shape instanceof RawRequestError) {
        ctx.warning(scalar.pos, itemPath, `${shape.message}; it is not sent`);
      }
      raw.push(request);
    });
    return raw.length === seq.items.length ? { kind: 'raw', raw } : undefined;
  }
  if (f.path !== undefined) {
    if (unsafe) {
      ctx.warning(
        f.unsafe?.key.pos ?? f.path.key.pos,
        [...path, 'unsafe'],
        '"unsafe: true" applies to raw requests only: these paths are sent as ordinary requests, as nuclei sends them; write the request under "raw:" to send it byte for byte',
      );
    }
    const method = decodeMethod(ctx, f.method, [...path, 'method']);
    const seq = ctx.decode.nonEmptyList(
      f.path.value,
      [...path, 'path'],
      'a list of paths such as "{{BaseURL}}/login"',
    );
    if (seq === undefined || method === undefined) return undefined;
    const paths: PathTemplate[] = [];
    seq.items.forEach((item, i) => {
      const scalar = ctx.decode.scalar(item, [...path, 'path', i], 'a path such as "{{BaseURL}}/login"');
      if (scalar === undefined) return;
      const text = compiledScalar(ctx, scalar, [...path, 'path', i]);
      if (text !== undefined) paths.push(text);
    });
    return paths.length === seq.items.length ? { kind: 'path', method, paths } : undefined;
  }
  if (ctx.unsupported.length === 0) {
    ctx.error(
      map.pos,
      path,
      'the request block needs "raw:" (raw HTTP requests) or "path:" (with "method:")',
    );
  }
  return undefined;
}

function decodeMethod(ctx: ParseContext, entry: MapEntry | undefined, path: Path): string | undefined {
  if (entry === undefined) return 'GET';
  const text = ctx.string(entry.value, path, 'an HTTP method');
  if (text === undefined) return undefined;
  const upper = text.trim().toUpperCase();
  if (METHODS.includes(upper)) return upper;
  ctx.error(entry.value.pos, path, `unknown HTTP method "${text}"; expected one of ${METHODS.join(', ')}`);
  return undefined;
}

function decodeHeaders(ctx: ParseContext, entry: MapEntry | undefined, path: Path): HeaderTemplate[] {
  if (entry === undefined || entry.value.kind === 'null') return [];
  const map = ctx.decode.map(entry.value, path, 'a mapping of header names to values');
  if (map === undefined) return [];
  const out: HeaderTemplate[] = [];
  for (const header of map.entries) {
    const name = header.key.text;
    const value = header.value;
    if (value.kind === 'null') {
      out.push({ name, template: EMPTY_TEXT, pos: header.key.pos });
      continue;
    }
    const scalar = ctx.decode.scalar(value, [...path, name], 'a header value');
    if (scalar === undefined) continue;
    const template = compiledScalar(ctx, scalar, [...path, name]);
    if (template !== undefined) out.push({ name, ...template });
  }
  return out;
}

function decodeBody(ctx: ParseContext, entry: MapEntry | undefined, path: Path): TemplateText | undefined {
  if (entry === undefined || entry.value.kind === 'null') return undefined;
  const scalar = ctx.decode.scalar(entry.value, path, 'a request body');
  if (scalar === undefined) return undefined;
  return compiledScalar(ctx, scalar, path, true);
}

/** A scalar of request text, compiled (`{{interactsh-url}}` is a callback name the run gives). */
function compiledScalar(
  ctx: ParseContext,
  scalar: ScalarNode,
  path: Path,
  crlf = false,
): TemplateText | undefined {
  const template = compileScalar(ctx, scalar, path, { crlf });
  return template === undefined ? undefined : { template, pos: scalar.pos };
}

function optionalInteger(
  ctx: ParseContext,
  entry: MapEntry | undefined,
  path: Path,
  min: number,
): number | undefined {
  if (entry === undefined || entry.value.kind === 'null') return undefined;
  return ctx.decode.integer(entry.value, path, { min });
}

/**
 * nuclei races with `race_count` (the first request, that many times) or with `threads:` (every
 * request, `threads` at a time); `race: true` with neither sends the requests one after another.
 */
function decodeRace(
  ctx: ParseContext,
  f: BlockFields,
  path: Path,
  threads: number | undefined,
): Race | undefined {
  const race = flag(ctx, f.race, [...path, 'race']);
  const count = optionalInteger(ctx, f.race_count, [...path, 'race_count'], 0);
  if (!race) {
    if (count !== undefined && count > 0 && f.race_count !== undefined) {
      ctx.warning(
        f.race_count.key.pos,
        [...path, 'race_count'],
        '"race_count" has no effect without "race: true"; add it to send the request that many times at once',
      );
    }
    return undefined;
  }
  if (count !== undefined && count > 0) return { kind: 'count', count };
  if (threads !== undefined && threads > 0) return { kind: 'threads' };
  ctx.warning(
    f.race?.key.pos ?? { line: 1, col: 1, offset: 0 },
    [...path, 'race'],
    '"race: true" without "race_count" or "threads" sends the requests one after another, as nuclei does; add "race_count: N" to send the first request N times at once',
  );
  return undefined;
}

function redirectPolicy(ctx: ParseContext, f: BlockFields, path: Path): RedirectPolicy {
  const all = flag(ctx, f.redirects, [...path, 'redirects']);
  const sameHost = flag(ctx, f['host-redirects'], [...path, 'host-redirects']);
  const max = optionalInteger(ctx, f['max-redirects'], [...path, 'max-redirects'], 0);
  if (!all && !sameHost) return { follow: 'none' };
  return {
    follow: sameHost ? 'same-host' : 'all',
    max: max === undefined || max === 0 ? DEFAULT_MAX_REDIRECTS : max,
  };
}

/**
 * A block that uses a variable holding `{{interactsh-url}}` writes a callback name: the variable's
 * text counts as written where the variable is used.
 */
function writeOastVariables(blocks: HttpBlock[], variables: readonly Variable[]): void {
  const oast = variables.filter((v) => v.text !== undefined && oastMarkerOffset(v.text) >= 0);
  if (oast.length === 0) return;
  blocks.forEach((block, i) => {
    const used = oast.filter((v) => new RegExp(`\\{\\{[^}]*\\b${v.name}\\b`).test(block.usageText));
    if (used.length === 0) return;
    blocks[i] = { ...block, usageText: [block.usageText, ...used.map((v) => v.text)].join('\n') };
  });
}

/** The text of every section where a payload name counts as used (as nuclei checks it). */
function usageText(f: BlockFields): string {
  const parts: string[] = [];
  const collect = (node: SourceNode): void => {
    if (node.kind === 'scalar') parts.push(node.text);
    else if (node.kind === 'seq') node.items.forEach(collect);
    else if (node.kind === 'map') {
      for (const e of node.entries) {
        parts.push(e.key.text);
        collect(e.value);
      }
    }
  };
  for (const key of ['raw', 'path', 'headers', 'body', 'matchers', 'extractors'] as const) {
    const entry = f[key];
    if (entry !== undefined) collect(entry.value);
  }
  return parts.join('\n');
}

/** nuclei's randstr preprocessor: `{{randstr}}` and `{{randstr_<suffix>}}` anywhere in the file. */
function findRandstrNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/\{\{([a-z0-9_]+)\}\}/g)) {
    const name = match[1] ?? '';
    if (name.toLowerCase() === 'randstr' || name.startsWith('randstr_')) names.add(name);
  }
  return [...names];
}
