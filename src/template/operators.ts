import {
  type CompiledOperators,
  type Condition,
  compileOperators,
  type Extractor,
  type Matcher,
  type OperatorError,
  type Operators,
} from '../operators/index.js';
import type { MapEntry, Path, Position, SourceNode } from '../source/index.js';
import { didYouMean } from '../source/index.js';
import type { ParseContext } from './context.js';
import { EXTRACTOR_KEYS, MATCHER_KEYS } from './keys.js';

const MATCHER_TYPES = ['word', 'regex', 'status', 'size', 'binary', 'dsl', 'xpath'] as const;
const EXTRACTOR_TYPES = ['regex', 'kval', 'json', 'xpath', 'dsl'] as const;

/** The field holding the values of each matcher type. */
const MATCHER_VALUES = {
  word: 'words',
  regex: 'regex',
  status: 'status',
  size: 'size',
  binary: 'binary',
  dsl: 'dsl',
  xpath: 'xpath',
} as const;

const EXTRACTOR_VALUES = {
  regex: 'regex',
  kval: 'kval',
  json: 'json',
  xpath: 'xpath',
  dsl: 'dsl',
} as const;

/** Positions of every decoded matcher and extractor value, for errors found when compiling them. */
export interface OperatorPositions {
  readonly matchers: readonly ValuePositions[];
  readonly extractors: readonly ValuePositions[];
}

export interface ValuePositions {
  /** Where the matcher or extractor is in the template (`http[0].matchers[2]`). */
  readonly path: Path;
  readonly item: SourceNode;
  /** The key of the field holding the values (`words`, `regex`, …) and each value's node. */
  readonly field?: MapEntry;
  readonly values: readonly SourceNode[];
}

export interface DecodedOperators {
  readonly operators: Operators;
  readonly positions: OperatorPositions;
}

/** `matchers`, `matchers-condition` and `extractors` of one request block. */
export function decodeOperators(
  ctx: ParseContext,
  entries: {
    matchers?: MapEntry;
    'matchers-condition'?: MapEntry;
    extractors?: MapEntry;
  },
  path: Path,
): DecodedOperators {
  const matchers: Matcher[] = [];
  const extractors: Extractor[] = [];
  const matcherPositions: ValuePositions[] = [];
  const extractorPositions: ValuePositions[] = [];
  let matchersCondition: Condition = 'or';

  const conditionEntry = entries['matchers-condition'];
  if (conditionEntry !== undefined) {
    const value = condition(ctx, conditionEntry.value, [...path, 'matchers-condition']);
    if (value !== undefined) matchersCondition = value;
  }
  const matcherList = entries.matchers;
  if (matcherList !== undefined && matcherList.value.kind !== 'null') {
    const seq = ctx.decode.list(matcherList.value, [...path, 'matchers'], 'a list of matchers');
    seq?.items.forEach((item, i) => {
      const decoded = decodeMatcher(ctx, item, [...path, 'matchers', i]);
      if (decoded !== undefined) {
        matchers.push(decoded.matcher);
        matcherPositions.push(decoded.positions);
      }
    });
  }
  const extractorList = entries.extractors;
  if (extractorList !== undefined && extractorList.value.kind !== 'null') {
    const seq = ctx.decode.list(extractorList.value, [...path, 'extractors'], 'a list of extractors');
    seq?.items.forEach((item, i) => {
      const decoded = decodeExtractor(ctx, item, [...path, 'extractors', i]);
      if (decoded !== undefined) {
        extractors.push(decoded.extractor);
        extractorPositions.push(decoded.positions);
      }
    });
  }
  return {
    operators: { matchers, matchersCondition, extractors },
    positions: { matchers: matcherPositions, extractors: extractorPositions },
  };
}

function condition(ctx: ParseContext, node: SourceNode, path: Path): Condition | undefined {
  const text = ctx.string(node, path, '"and" or "or"');
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  if (lower === 'and' || lower === 'or') return lower;
  ctx.error(node.pos, path, `expected "and" or "or", found "${text}"`);
  return undefined;
}

function oneOf<T extends string>(
  ctx: ParseContext,
  node: SourceNode,
  path: Path,
  allowed: readonly T[],
  what: string,
): T | undefined {
  const text = ctx.string(node, path, what);
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  const found = allowed.find((a) => a === lower);
  if (found !== undefined) return found;
  const list = allowed.map((a) => `"${a}"`).join(', ');
  ctx.error(
    node.pos,
    path,
    `unknown ${what} "${text}"${didYouMean(lower, allowed)}; expected one of ${list}`,
  );
  return undefined;
}

interface CommonFields {
  name?: string;
  part: string;
  internal: boolean;
  caseInsensitive: boolean;
}

function commonFields(
  ctx: ParseContext,
  fields: Partial<Record<string, MapEntry>>,
  path: Path,
): CommonFields {
  const out: CommonFields = { part: 'body', internal: false, caseInsensitive: false };
  const name = fields.name;
  if (name !== undefined) {
    const text = ctx.string(name.value, [...path, 'name'], 'a name');
    if (text !== undefined && text.trim() !== '') out.name = text.trim();
  }
  const part = fields.part;
  if (part !== undefined) {
    const text = ctx.string(part.value, [...path, 'part'], 'a response part');
    if (text !== undefined && text.trim() !== '') {
      out.part = text.trim();
    }
  }
  const internal = fields.internal;
  if (internal !== undefined) out.internal = ctx.decode.bool(internal.value, [...path, 'internal']) ?? false;
  const insensitive = fields['case-insensitive'];
  if (insensitive !== undefined) {
    out.caseInsensitive = ctx.decode.bool(insensitive.value, [...path, 'case-insensitive']) ?? false;
  }
  return out;
}

/** A list of strings (YAML numbers and booleans keep their source text). */
function stringValues(
  ctx: ParseContext,
  entry: MapEntry,
  path: Path,
): { values: string[]; nodes: SourceNode[] } | undefined {
  const seq = ctx.decode.nonEmptyList(entry.value, path, `a list for "${entry.key.text}"`);
  if (seq === undefined) return undefined;
  const values: string[] = [];
  const nodes: SourceNode[] = [];
  seq.items.forEach((item, i) => {
    const text = ctx.string(item, [...path, i], 'a text value');
    if (text !== undefined) {
      values.push(text);
      nodes.push(item);
    }
  });
  return { values, nodes };
}

function integerValues(
  ctx: ParseContext,
  entry: MapEntry,
  path: Path,
  range: { min: number; max?: number },
): { values: number[]; nodes: SourceNode[] } | undefined {
  const seq = ctx.decode.nonEmptyList(entry.value, path, `a list of numbers for "${entry.key.text}"`);
  if (seq === undefined) return undefined;
  const values: number[] = [];
  const nodes: SourceNode[] = [];
  seq.items.forEach((item, i) => {
    const n = ctx.decode.integer(item, [...path, i], range);
    if (n !== undefined) {
      values.push(n);
      nodes.push(item);
    }
  });
  return { values, nodes };
}

function decodeMatcher(
  ctx: ParseContext,
  item: SourceNode,
  path: Path,
): { matcher: Matcher; positions: ValuePositions } | undefined {
  const map = ctx.decode.map(item, path, 'a matcher (a mapping with "type")');
  if (map === undefined) return undefined;
  const fields = ctx.fields(map, path, MATCHER_KEYS);
  const typeEntry = fields.type;
  if (typeEntry === undefined) {
    ctx.error(map.pos, path, `a matcher needs "type": one of ${MATCHER_TYPES.join(', ')}`);
    return undefined;
  }
  const type = oneOf(ctx, typeEntry.value, [...path, 'type'], MATCHER_TYPES, 'matcher type');
  const common = commonFields(ctx, fields, path);
  let matcherCondition: Condition = 'or';
  if (fields.condition !== undefined) {
    matcherCondition = condition(ctx, fields.condition.value, [...path, 'condition']) ?? 'or';
  }
  const negative =
    fields.negative === undefined
      ? false
      : (ctx.decode.bool(fields.negative.value, [...path, 'negative']) ?? false);
  const matchAll =
    fields['match-all'] === undefined
      ? false
      : (ctx.decode.bool(fields['match-all'].value, [...path, 'match-all']) ?? false);
  if (type === undefined) return undefined;
  const valuesKey = MATCHER_VALUES[type];
  const valuesEntry = fields[valuesKey];
  if (valuesEntry === undefined) {
    ctx.error(map.pos, path, `a ${type} matcher needs "${valuesKey}:" with at least one value`);
    return undefined;
  }
  const base = {
    ...(common.name === undefined ? {} : { name: common.name }),
    part: common.part,
    condition: matcherCondition,
    negative,
    internal: common.internal,
    caseInsensitive: common.caseInsensitive,
    matchAll,
  };
  const valuesPath = [...path, valuesKey];
  if (type === 'status' || type === 'size') {
    const decoded = integerValues(
      ctx,
      valuesEntry,
      valuesPath,
      type === 'status' ? { min: 100, max: 999 } : { min: 0 },
    );
    if (decoded === undefined) return undefined;
    const matcher: Matcher =
      type === 'status' ? { ...base, type, status: decoded.values } : { ...base, type, size: decoded.values };
    return { matcher, positions: { path, item, field: valuesEntry, values: decoded.nodes } };
  }
  const decoded = stringValues(ctx, valuesEntry, valuesPath);
  if (decoded === undefined) return undefined;
  checkOastValues(ctx, type, decoded, valuesPath);
  const positions = { path, item, field: valuesEntry, values: decoded.nodes };
  switch (type) {
    case 'word': {
      const encoding = matcherEncoding(ctx, fields.encoding, path);
      return {
        matcher: { ...base, type, words: decoded.values, ...(encoding === undefined ? {} : { encoding }) },
        positions,
      };
    }
    case 'regex':
      return { matcher: { ...base, type, regex: decoded.values }, positions };
    case 'binary':
      return { matcher: { ...base, type, binary: decoded.values }, positions };
    case 'dsl':
      return { matcher: { ...base, type, dsl: decoded.values }, positions };
    case 'xpath':
      return { matcher: { ...base, type, xpath: decoded.values }, positions };
  }
}

function matcherEncoding(ctx: ParseContext, entry: MapEntry | undefined, path: Path): 'hex' | undefined {
  if (entry === undefined) return undefined;
  const text = ctx.string(entry.value, [...path, 'encoding'], '"hex"');
  if (text === undefined || text.trim() === '') return undefined;
  if (text.trim().toLowerCase() === 'hex') return 'hex';
  ctx.warning(
    entry.value.pos,
    [...path, 'encoding'],
    `unknown encoding "${text}" is ignored, as nuclei ignores it; the only encoding is "hex"`,
  );
  return undefined;
}

function checkOastValues(
  ctx: ParseContext,
  type: string,
  decoded: { values: string[]; nodes: SourceNode[] },
  path: Path,
): void {
  decoded.nodes.forEach((node, i) => {
    if (node.kind !== 'scalar') return;
    // A matcher's own values are compared as written: no callback name is given to them.
    if (type !== 'dsl') ctx.checkOastMarkers(node, [...path, i]);
  });
}

function decodeExtractor(
  ctx: ParseContext,
  item: SourceNode,
  path: Path,
): { extractor: Extractor; positions: ValuePositions } | undefined {
  const map = ctx.decode.map(item, path, 'an extractor (a mapping with "type")');
  if (map === undefined) return undefined;
  const fields = ctx.fields(map, path, EXTRACTOR_KEYS);
  const typeEntry = fields.type;
  if (typeEntry === undefined) {
    ctx.error(map.pos, path, `an extractor needs "type": one of ${EXTRACTOR_TYPES.join(', ')}`);
    return undefined;
  }
  const type = oneOf(ctx, typeEntry.value, [...path, 'type'], EXTRACTOR_TYPES, 'extractor type');
  const common = commonFields(ctx, fields, path);
  let group = 0;
  if (fields.group !== undefined)
    group = ctx.decode.integer(fields.group.value, [...path, 'group'], { min: 0 }) ?? 0;
  let attribute: string | undefined;
  if (fields.attribute !== undefined) {
    const text = ctx.string(fields.attribute.value, [...path, 'attribute'], 'an attribute name');
    if (text !== undefined && text.trim() !== '') attribute = text.trim();
  }
  if (type === undefined) return undefined;
  const valuesKey = EXTRACTOR_VALUES[type];
  const valuesEntry = fields[valuesKey];
  if (valuesEntry === undefined) {
    ctx.error(map.pos, path, `a ${type} extractor needs "${valuesKey}:" with at least one value`);
    return undefined;
  }
  const decoded = stringValues(ctx, valuesEntry, [...path, valuesKey]);
  if (decoded === undefined) return undefined;
  checkOastValues(ctx, type, decoded, [...path, valuesKey]);
  const base = {
    ...(common.name === undefined ? {} : { name: common.name }),
    part: common.part,
    internal: common.internal,
    caseInsensitive: common.caseInsensitive,
  };
  const positions = { path, item, field: valuesEntry, values: decoded.nodes };
  switch (type) {
    case 'regex':
      return { extractor: { ...base, type, regex: decoded.values, group }, positions };
    case 'kval':
      return { extractor: { ...base, type, kval: decoded.values }, positions };
    case 'json':
      return { extractor: { ...base, type, json: decoded.values }, positions };
    case 'xpath':
      return {
        extractor: {
          ...base,
          type,
          xpath: decoded.values,
          ...(attribute === undefined ? {} : { attribute }),
        },
        positions,
      };
    case 'dsl':
      return { extractor: { ...base, type, dsl: decoded.values }, positions };
  }
}

/**
 * Compiles the decoded matchers and extractors of a block as the engine will run them; every
 * compile error (a regex that is not RE2, an unknown helper in a dsl expression, a bad jq query, …)
 * is reported at the value's exact line and column.
 */
export function compileBlockOperators(
  ctx: ParseContext,
  decoded: DecodedOperators,
): CompiledOperators | undefined {
  const compiled = compileOperators(decoded.operators);
  if (!Array.isArray(compiled)) return compiled;
  for (const error of compiled) reportOperatorError(ctx, decoded.positions, error);
  return undefined;
}

function reportOperatorError(ctx: ParseContext, positions: OperatorPositions, error: OperatorError): void {
  const list = error.operator === 'matcher' ? positions.matchers : positions.extractors;
  const at = list[error.index];
  if (at === undefined) {
    ctx.error(
      { line: 1, col: 1, offset: 0 },
      [`${error.operator}s`, error.index, error.field],
      error.message,
    );
    return;
  }
  const fieldPath = [...at.path, error.field];
  const report = (pos: Position, path: Path): void => {
    if (error.unsupported !== undefined) ctx.markUnsupported(error.unsupported, pos, path);
    else ctx.error(pos, path, withHint(error));
  };
  const valueNode =
    error.valueIndex !== undefined && at.field?.key.text === error.field
      ? at.values[error.valueIndex]
      : undefined;
  if (valueNode !== undefined) {
    const seq = at.field?.value;
    const index = seq?.kind === 'seq' ? seq.items.indexOf(valueNode) : (error.valueIndex ?? 0);
    report(valuePosition(ctx, valueNode, error.offset), [...fieldPath, index]);
    return;
  }
  const entry = at.item.kind === 'map' ? at.item.entries.find((e) => e.key.text === error.field) : undefined;
  report(entry?.key.pos ?? at.item.pos, fieldPath);
}

function valuePosition(ctx: ParseContext, node: SourceNode, offset: number | undefined): Position {
  if (node.kind !== 'scalar' || offset === undefined) return node.pos;
  return ctx.positionIn(node, offset);
}

function withHint(error: OperatorError): string {
  if (error.field === 'regex' && !error.message.includes('RE2')) {
    return `${error.message} (regexes are Go RE2 syntax: no lookaround, no backreferences)`;
  }
  return error.message;
}
