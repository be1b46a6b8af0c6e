import type { Position, ScalarNode } from '../source/index.js';

/**
 * Out-of-band (interactsh) markers, wherever they sit (also inside a helper call such as
 * `{{base64("{{interactsh-url}}")}}`). A request's text, and a `variables:` value a request uses,
 * get a callback name per request; a payload or a matcher's own value get none (the run evaluates
 * them apart from any request), so there the marker is reported as unsupported.
 */
const OAST_MARKER = /\{\{\s*interactsh[-_]url(?:_\d+)*\s*\}\}/i;

/** A callback name written anywhere in a block's requests, even inside a helper call. */
const OAST_NAME = /\{\{\s*interactsh[-_]url/i;

/** Whether a block's requests write a callback name: its runs need an interactsh server. */
export function writesOastName(block: { readonly usageText: string }): boolean {
  return OAST_NAME.test(block.usageText);
}

/** The offset of the first out-of-band marker in `text`, or -1. */
export function oastMarkerOffset(text: string): number {
  return text.search(OAST_MARKER);
}

/** The marker found at `offset`, as written (`{{interactsh-url}}`). */
export function oastMarkerAt(text: string, offset: number): string {
  return OAST_MARKER.exec(text.slice(offset))?.[0] ?? '';
}

/**
 * The file position of `offset` inside the string value of `node`, so that an error about one
 * placeholder of a long raw request points at its line and column. Exact for literal block scalars
 * (`|`), plain scalars on one line and quoted scalars (escapes such as `\"`, `\r\n` or `''` counted
 * as written, lines folded as YAML folds them); otherwise the scalar's start.
 */
export function positionInScalar(node: ScalarNode, offset: number, sourceText: string): Position {
  if (node.style === 'block') return inBlock(node, offset, sourceText);
  if (node.style === 'quoted') return inQuoted(node, offset, sourceText) ?? node.pos;
  if (!node.text.includes('\n') && sourceText.startsWith(node.text, node.pos.offset)) {
    return { line: node.pos.line, col: node.pos.col + offset, offset: node.pos.offset + offset };
  }
  return node.pos;
}

function inBlock(node: ScalarNode, offset: number, sourceText: string): Position {
  const before = node.text.slice(0, offset);
  const lineIndex = countNewlines(before);
  const colInLine = offset - (before.lastIndexOf('\n') + 1);
  const lines = sourceText.split('\n');
  const firstContent = node.pos.line; // 0-based index of the line after the `|` header
  const indent = blockIndent(lines, firstContent);
  const line = firstContent + lineIndex + 1;
  return { line, col: indent + colInLine + 1, offset: node.pos.offset };
}

/**
 * Walks the source of a quoted scalar from its opening quote, counting the characters each piece of
 * source stands for, until the value offset is reached. Follows YAML's folding of quoted scalars over
 * several lines: a line break is a space (or, with empty lines after it, that many newlines), spaces
 * around it are dropped, and an escaped line break joins the lines. Undefined when the source is not
 * what was expected.
 */
function inQuoted(node: ScalarNode, offset: number, sourceText: string): Position | undefined {
  const quote = sourceText[node.pos.offset];
  if (quote !== '"' && quote !== "'") return undefined;
  let at = node.pos.offset + 1;
  let decoded = 0;
  while (decoded < offset) {
    const piece = quotedPiece(sourceText, at, quote);
    if (piece === undefined) return undefined;
    at += piece.source;
    decoded += piece.value;
  }
  if (decoded !== offset) return undefined;
  return positionAt(sourceText, node.pos, at);
}

interface Piece {
  /** Source characters the piece takes. */
  readonly source: number;
  /** UTF-16 units of the value it stands for. */
  readonly value: number;
}

function quotedPiece(sourceText: string, at: number, quote: string): Piece | undefined {
  const char = sourceText[at];
  if (char === undefined) return undefined;
  if (char === quote) {
    return quote === "'" && sourceText[at + 1] === "'" ? { source: 2, value: 1 } : undefined;
  }
  if (char === ' ' || char === '\t') {
    const end = skipBlanks(sourceText, at);
    // Blanks before a line break are not part of the value.
    return isLineBreak(sourceText, end) ? { source: end - at, value: 0 } : { source: 1, value: 1 };
  }
  if (isLineBreak(sourceText, at)) return folded(sourceText, at, 1);
  if (char === '\\' && quote === '"') {
    if (isLineBreak(sourceText, at + 1)) return folded(sourceText, at + 1, 0, 1);
    return escapeWidth(sourceText, at);
  }
  return { source: 1, value: 1 };
}

/**
 * A line break at `at` and the empty lines and indentation after it: one space when no empty line
 * follows, else one newline per empty line (`joined` is the value of an escaped break: nothing).
 */
function folded(sourceText: string, at: number, joined: number, extra = 0): Piece {
  let end = afterLineBreak(sourceText, at);
  let emptyLines = 0;
  for (;;) {
    const contentStart = skipBlanks(sourceText, end);
    if (!isLineBreak(sourceText, contentStart)) {
      end = contentStart;
      break;
    }
    emptyLines++;
    end = afterLineBreak(sourceText, contentStart);
  }
  return { source: end - at + extra, value: emptyLines > 0 ? emptyLines : joined };
}

function skipBlanks(sourceText: string, at: number): number {
  let end = at;
  while (sourceText[end] === ' ' || sourceText[end] === '\t') end++;
  return end;
}

function isLineBreak(sourceText: string, at: number): boolean {
  return sourceText[at] === '\n' || (sourceText[at] === '\r' && sourceText[at + 1] === '\n');
}

function afterLineBreak(sourceText: string, at: number): number {
  return sourceText[at] === '\r' ? at + 2 : at + 1;
}

/** Line and column of a source offset at or after `start`. */
function positionAt(sourceText: string, start: Position, offset: number): Position {
  let line = start.line;
  let lineStart = start.offset - (start.col - 1);
  for (
    let i = sourceText.indexOf('\n', start.offset);
    i >= 0 && i < offset;
    i = sourceText.indexOf('\n', i + 1)
  ) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1, offset };
}

/** How many source characters a double-quoted escape takes and how many UTF-16 units it stands for. */
function escapeWidth(sourceText: string, at: number): Piece | undefined {
  const kind = sourceText[at + 1];
  if (kind === undefined) return undefined;
  if (kind === 'x') return { source: 4, value: 1 };
  if (kind === 'u') return { source: 6, value: 1 };
  if (kind === 'U') {
    const codePoint = Number.parseInt(sourceText.slice(at + 2, at + 10), 16);
    return { source: 10, value: codePoint > 0xffff ? 2 : 1 };
  }
  return { source: 2, value: 1 };
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function blockIndent(lines: readonly string[], from: number): number {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() !== '') return line.length - line.trimStart().length;
  }
  return 0;
}
