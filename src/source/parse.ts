import { type Node as JsonNode, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  Scalar,
  type Node as YamlNode,
} from 'yaml';
import { Diagnostics } from './diagnostic.js';
import type { MapEntry, Position, ScalarNode, SourceNode } from './node.js';

export type SourceFormat = 'yaml' | 'json';

export interface ParsedSource {
  readonly file: string;
  /** Undefined when the file is empty or could not be parsed at all. */
  readonly root: SourceNode | undefined;
  readonly diagnostics: Diagnostics;
}

/** Files are chosen by extension, compared case-insensitively (`.YAML` is YAML). */
export function formatOf(file: string): SourceFormat | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return undefined;
}

export function parseSource(file: string, text: string, format: SourceFormat): ParsedSource {
  return format === 'json' ? parseJson(file, text) : parseYaml(file, text);
}

// --- positions -------------------------------------------------------------------------------

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) starts.push(i + 1);
  }
  return starts;
}

function positionAt(lineStarts: readonly number[], offset: number): Position {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, col: offset - (lineStarts[low] ?? 0) + 1, offset };
}

// --- YAML ------------------------------------------------------------------------------------

/** Enough for any real configuration file, far too few for an alias bomb. */
const MAX_ALIAS_EXPANSIONS = 1000;
const MAX_DEPTH = 64;

function parseYaml(file: string, text: string): ParsedSource {
  const diagnostics = new Diagnostics(file);
  const lineStarts = lineStartsOf(text);
  const at = (offset: number) => positionAt(lineStarts, offset);
  const docs = parseAllDocuments(text, {
    lineCounter: new LineCounter(),
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
  });
  const list = Array.isArray(docs) ? docs : [];
  if (list.length === 0) return { file, root: undefined, diagnostics };
  if (list.length > 1) {
    const second = list[1]?.range?.[0] ?? 0;
    diagnostics.error(at(second), [], 'the file holds several YAML documents (---); keep exactly one');
  }
  const doc = list[0];
  if (doc === undefined) return { file, root: undefined, diagnostics };
  for (const err of doc.errors) {
    diagnostics.error(at(err.pos[0]), [], yamlMessage(err.code, err.message));
  }
  if (doc.errors.length > 0 || doc.contents === null) return { file, root: undefined, diagnostics };

  let aliases = 0;
  const convert = (node: unknown, depth: number): SourceNode | undefined => {
    if (depth > MAX_DEPTH) {
      diagnostics.error(at(offsetOf(node)), [], `nesting deeper than ${MAX_DEPTH} levels is not supported`);
      return undefined;
    }
    if (isAlias(node)) {
      aliases++;
      if (aliases > MAX_ALIAS_EXPANSIONS) {
        diagnostics.error(at(offsetOf(node)), [], `more than ${MAX_ALIAS_EXPANSIONS} YAML alias expansions`);
        return undefined;
      }
      return convert(node.resolve(doc), depth + 1);
    }
    const pos = at(offsetOf(node));
    if (isScalar(node)) return yamlScalar(node, pos);
    if (isSeq(node)) {
      const items: SourceNode[] = [];
      for (const item of node.items) {
        const converted = item === null ? { kind: 'null' as const, pos } : convert(item, depth + 1);
        if (converted === undefined) return undefined;
        items.push(converted);
      }
      return { kind: 'seq', items, pos };
    }
    if (isMap(node)) {
      const entries: MapEntry[] = [];
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? yamlScalar(pair.key, at(offsetOf(pair.key))) : undefined;
        if (key === undefined || key.kind !== 'scalar') {
          diagnostics.error(at(offsetOf(pair.key)), [], 'mapping keys must be plain text');
          return undefined;
        }
        const value =
          pair.value === null || pair.value === undefined
            ? { kind: 'null' as const, pos: at(offsetOf(pair.key)) }
            : convert(pair.value, depth + 1);
        if (value === undefined) return undefined;
        entries.push({ key, value });
      }
      return { kind: 'map', entries, pos };
    }
    diagnostics.error(pos, [], 'unsupported YAML node');
    return undefined;
  };
  return { file, root: convert(doc.contents, 0), diagnostics };
}

function offsetOf(node: unknown): number {
  const range = (node as YamlNode | null)?.range;
  return range?.[0] ?? 0;
}

function yamlScalar(node: Scalar, pos: Position): ScalarNode | { kind: 'null'; pos: Position } {
  if (node.type === Scalar.PLAIN && node.value === null) return { kind: 'null', pos };
  const style = node.type === Scalar.PLAIN ? 'plain' : node.type?.startsWith('QUOTE') ? 'quoted' : 'block';
  const text = node.source ?? String(node.value);
  return { kind: 'scalar', text, style, pos };
}

function yamlMessage(code: string, message: string): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'this key appears twice in the same mapping; keep one';
    case 'TAB_AS_INDENT':
      return 'tabs are not allowed as YAML indentation; indent with spaces';
    case 'BAD_INDENT':
      return `bad indentation: ${message}; align the keys of one mapping at the same column`;
    case 'MISSING_CHAR':
    case 'UNEXPECTED_TOKEN':
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return `invalid YAML: ${message}`;
    default:
      return `invalid YAML: ${message}`;
  }
}

// --- JSON ------------------------------------------------------------------------------------

function parseJson(file: string, text: string): ParsedSource {
  const diagnostics = new Diagnostics(file);
  const lineStarts = lineStartsOf(text);
  const at = (offset: number) => positionAt(lineStarts, offset);
  if (text.trim() === '') return { file, root: undefined, diagnostics };
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  for (const err of errors) {
    diagnostics.error(at(err.offset), [], `invalid JSON: ${jsonMessage(printParseErrorCode(err.error))}`);
  }
  if (errors.length > 0 || tree === undefined) return { file, root: undefined, diagnostics };

  const convert = (node: JsonNode, depth: number): SourceNode | undefined => {
    const pos = at(node.offset);
    if (depth > MAX_DEPTH) {
      diagnostics.error(pos, [], `nesting deeper than ${MAX_DEPTH} levels is not supported`);
      return undefined;
    }
    switch (node.type) {
      case 'null':
        return { kind: 'null', pos };
      case 'string':
        return { kind: 'scalar', text: String(node.value), style: 'quoted', pos };
      case 'number':
      case 'boolean':
        return {
          kind: 'scalar',
          text: text.slice(node.offset, node.offset + node.length),
          style: 'plain',
          pos,
        };
      case 'array': {
        const items: SourceNode[] = [];
        for (const child of node.children ?? []) {
          const converted = convert(child, depth + 1);
          if (converted === undefined) return undefined;
          items.push(converted);
        }
        return { kind: 'seq', items, pos };
      }
      case 'object': {
        const entries: MapEntry[] = [];
        const seen = new Set<string>();
        let ok = true;
        for (const property of node.children ?? []) {
          const [keyNode, valueNode] = property.children ?? [];
          if (keyNode === undefined || valueNode === undefined) continue;
          const key: ScalarNode = {
            kind: 'scalar',
            text: String(keyNode.value),
            style: 'quoted',
            pos: at(keyNode.offset),
          };
          if (seen.has(key.text)) {
            diagnostics.error(
              key.pos,
              [],
              `the key "${key.text}" appears twice in the same object; keep one`,
            );
            ok = false;
            continue;
          }
          seen.add(key.text);
          const value = convert(valueNode, depth + 1);
          if (value === undefined) return undefined;
          entries.push({ key, value });
        }
        return ok ? { kind: 'map', entries, pos } : undefined;
      }
      default:
        diagnostics.error(pos, [], 'unsupported JSON value');
        return undefined;
    }
  };
  return { file, root: convert(tree, 0), diagnostics };
}

function jsonMessage(code: string): string {
  const messages: Record<string, string> = {
    InvalidSymbol: 'unexpected character',
    InvalidNumberFormat: 'malformed number',
    PropertyNameExpected: 'expected a quoted property name',
    ValueExpected: 'expected a value',
    ColonExpected: 'expected ":" after the property name',
    CommaExpected: 'expected "," between items',
    CloseBraceExpected: 'expected "}"',
    CloseBracketExpected: 'expected "]"',
    EndOfFileExpected: 'unexpected text after the end of the document',
    InvalidCommentToken: 'comments are not allowed in JSON',
    UnexpectedEndOfComment: 'unterminated comment',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfNumber: 'unterminated number',
    InvalidUnicode: 'invalid \\u escape',
    InvalidEscapeCharacter: 'invalid escape sequence',
    InvalidCharacter: 'invalid character in string (control characters must be escaped)',
  };
  return messages[code] ?? code;
}
