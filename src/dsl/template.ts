/**
 * `{{…}}` interpolation in request text, headers, bodies, paths, `variables:` and string literals of
 * expressions, with nuclei's semantics:
 *
 * - `{{name}}`, `{{ name }}`, `{{wp-admin-cookie}}` and the payload marker `§name§` are replaced by the
 *   variable's value;
 * - `{{expression}}` that reads variables or calls helpers is evaluated once all its variables are known
 *   (`{{base64(username + ':' + password)}}`);
 * - `{{…}}` that is not an expression of the language, or only combines literals (`{{7*7}}` in an SSTI
 *   probe, `{{constructor.constructor('x')()}}`), is text and stays as written, as nuclei leaves it;
 * - a placeholder that cannot be resolved (missing variable, failing helper) stays as written and is
 *   reported, so that the caller can skip the request and say why.
 *
 * A placeholder ends at the first `}}` that closes a valid expression, so `}}` inside a string literal
 * does not end it (`{{concat("{{", "x", "}}")}}`). Placeholders inside string literals of an expression
 * are resolved as values (`{{url_encode(base64("{{password}}"))}}`), never spliced into the source, and
 * a substituted value is never scanned for placeholders again: a response or a secret containing `{{…}}`
 * cannot inject an expression.
 */
import { asEvaluationError, compileProgram, NOT_AN_EXPRESSION, type Program } from './compile.js';
import { DslSyntaxError } from './errors.js';
import { type DslValue, toText, type VariableScope } from './value.js';

export interface TemplateString {
  readonly text: string;
  /** Variables the placeholders read. */
  readonly variables: readonly string[];
  /** False when the text has nothing to substitute (rendering returns it unchanged). */
  readonly hasPlaceholders: boolean;
  /** Renders what it can; placeholders that cannot be resolved are left as written and listed. */
  render(scope: VariableScope): RenderedText;
}

export interface RenderedText {
  readonly text: string;
  /** The placeholders left as written (their inner text, e.g. `password` or `base64(password)`). */
  readonly unresolved: readonly string[];
  /** Why each unresolved placeholder could not be rendered. */
  readonly details: readonly UnresolvedPlaceholder[];
}

export interface UnresolvedPlaceholder {
  /** The placeholder as written, markers included. */
  readonly placeholder: string;
  /** Variables it reads that the scope does not hold. */
  readonly missing: readonly string[];
  /** The evaluation error, when all variables were there but evaluating failed. */
  readonly error?: string | undefined;
}

type Resolution =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly missing: readonly string[]; readonly error?: string };

interface Placeholder {
  readonly written: string;
  readonly inner: string;
  readonly variables: readonly string[];
  resolve(scope: VariableScope): Resolution;
}

type Segment = string | Placeholder;

/** A bare variable name, as nuclei substitutes it textually: hyphens and dots are part of the name. */
const NAME = /^[\p{L}_][\p{L}\p{Nd}_.-]*$/u;
const MARKER_NAME = /^[\p{L}\p{Nd}_.-]+$/u;

/** Bounds on the search for a placeholder's end, so that adversarial text cannot make it quadratic. */
const MAX_CLOSE_CANDIDATES = 64;
const MAX_PLACEHOLDER_LENGTH = 16 * 1024;
/** String literals nested inside placeholders inside string literals… are text beyond this depth. */
const MAX_EMBEDDING_DEPTH = 6;

export function compileTemplateString(text: string): TemplateString | DslSyntaxError {
  const segments = scan(text);
  if (segments instanceof DslSyntaxError) return segments;
  return templateOf(text, segments);
}

/** A template inside a string literal of an expression: unresolved placeholders render as written. */
export interface EmbeddedTemplate {
  readonly variables: readonly string[];
  render(scope: VariableScope): string;
}

let embeddingDepth = 0;

/** Undefined when `text` has no placeholder to substitute. */
export function compileEmbeddedTemplate(text: string): EmbeddedTemplate | DslSyntaxError | undefined {
  if (embeddingDepth >= MAX_EMBEDDING_DEPTH) return undefined;
  embeddingDepth += 1;
  try {
    const segments = scan(text);
    if (segments instanceof DslSyntaxError) return segments;
    const template = templateOf(text, segments);
    if (!template.hasPlaceholders) return undefined;
    return { variables: template.variables, render: (scope) => template.render(scope).text };
  } finally {
    embeddingDepth -= 1;
  }
}

function templateOf(text: string, segments: readonly Segment[]): TemplateString {
  const placeholders = segments.filter((segment): segment is Placeholder => typeof segment !== 'string');
  const variables = [...new Set(placeholders.flatMap((placeholder) => placeholder.variables))];
  if (placeholders.length === 0) {
    const rendered: RenderedText = { text, unresolved: [], details: [] };
    return { text, variables, hasPlaceholders: false, render: () => rendered };
  }
  return {
    text,
    variables,
    hasPlaceholders: true,
    render(scope: VariableScope): RenderedText {
      let out = '';
      const unresolved: string[] = [];
      const details: UnresolvedPlaceholder[] = [];
      for (const segment of segments) {
        if (typeof segment === 'string') {
          out += segment;
          continue;
        }
        const resolution = segment.resolve(scope);
        if (resolution.ok) {
          out += resolution.text;
          continue;
        }
        out += segment.written;
        if (!unresolved.includes(segment.inner)) {
          unresolved.push(segment.inner);
          details.push({
            placeholder: segment.written,
            missing: resolution.missing,
            error: resolution.error,
          });
        }
      }
      return { text: out, unresolved, details };
    },
  };
}

function scan(text: string): Segment[] | DslSyntaxError {
  const segments: Segment[] = [];
  let literal = '';
  let position = 0;
  while (position < text.length) {
    const open = nextMarker(text, position);
    if (open < 0) break;
    literal += text.slice(position, open);
    const found = text.startsWith('{{', open) ? braced(text, open) : marker(text, open);
    if (found instanceof DslSyntaxError) return found;
    if (found === undefined) {
      const markerLength = text.startsWith('{{', open) ? 2 : 1;
      literal += text.slice(open, open + markerLength);
      position = open + markerLength;
      continue;
    }
    if (typeof found.segment === 'string') literal += found.segment;
    else {
      if (literal !== '') segments.push(literal);
      literal = '';
      segments.push(found.segment);
    }
    position = found.end;
  }
  literal += text.slice(position);
  if (literal !== '') segments.push(literal);
  return segments;
}

function nextMarker(text: string, from: number): number {
  const brace = text.indexOf('{{', from);
  const section = text.indexOf('§', from);
  if (brace < 0) return section;
  if (section < 0) return brace;
  return Math.min(brace, section);
}

interface Found {
  /** A placeholder, or text (a literal-only `{{…}}` that stays as written). */
  readonly segment: Segment;
  readonly end: number;
}

/** `§name§`, nuclei's payload marker; anything else between `§` is text. */
function marker(text: string, open: number): Found | undefined {
  const close = text.indexOf('§', open + 1);
  if (close < 0) return undefined;
  const name = text.slice(open + 1, close);
  if (!MARKER_NAME.test(name)) return undefined;
  return { segment: namePlaceholder(text.slice(open, close + 1), name, undefined), end: close + 1 };
}

function braced(text: string, open: number): Found | DslSyntaxError | undefined {
  let close = text.indexOf('}}', open + 2);
  for (let tries = 0; close >= 0 && tries < MAX_CLOSE_CANDIDATES; tries++) {
    if (close - open > MAX_PLACEHOLDER_LENGTH) return undefined;
    const inner = text.slice(open + 2, close);
    const written = text.slice(open, close + 2);
    const segment = classify(written, inner);
    if (segment instanceof DslSyntaxError) {
      return new DslSyntaxError(
        text,
        open + 2 + segment.offset,
        segment.message,
        segment.suggestion,
        segment.unsupportedFunction,
      );
    }
    if (segment !== undefined) return { segment, end: close + 2 };
    close = text.indexOf('}}', close + 1);
  }
  return undefined;
}

function classify(written: string, inner: string): Segment | DslSyntaxError | undefined {
  const name = inner.trim();
  if (NAME.test(name) && name !== 'true' && name !== 'false') {
    const fallback = name.includes('-') ? compileProgram(name, 'template') : undefined;
    const program =
      fallback !== undefined && !(fallback instanceof DslSyntaxError) && fallback !== NOT_AN_EXPRESSION
        ? fallback
        : undefined;
    return namePlaceholder(written, name, program);
  }
  const program = compileProgram(inner, 'template');
  if (program === NOT_AN_EXPRESSION) return undefined;
  if (program instanceof DslSyntaxError) return program;
  if (program.literalOnly) return written;
  return expressionPlaceholder(written, name, program);
}

function namePlaceholder(written: string, name: string, fallback: Program | undefined): Placeholder {
  return {
    written,
    inner: name,
    variables: [name],
    resolve(scope) {
      const value = scope.get(name);
      if (value !== undefined) return { ok: true, text: toText(value) };
      if (fallback?.variables.every((variable) => scope.has(variable))) {
        const evaluated = evaluate(fallback as Program, scope);
        if (evaluated.ok) return evaluated;
      }
      return { ok: false, missing: [name] };
    },
  };
}

function expressionPlaceholder(written: string, inner: string, program: Program): Placeholder {
  return {
    written,
    inner,
    variables: program.variables,
    resolve(scope) {
      const missing = program.variables.filter((variable) => !scope.has(variable));
      if (missing.length > 0) return { ok: false, missing };
      return evaluate(program, scope);
    },
  };
}

function evaluate(program: Program, scope: VariableScope): Resolution {
  let value: DslValue;
  try {
    value = program.run(scope);
  } catch (error) {
    return { ok: false, missing: [], error: asEvaluationError(error).message };
  }
  return { ok: true, text: toText(value) };
}
