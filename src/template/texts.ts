import { compileTemplateString, DslSyntaxError, type TemplateString } from '../dsl/index.js';
import type { Path, Position, ScalarNode } from '../source/index.js';
import type { ParseContext } from './context.js';

/**
 * Compiles the `{{…}}` placeholders of template text at parse time, following the expression
 * language's rules: a helper call or a variable is a placeholder; text that only looks like one
 * (`{{7*7}}` in an SSTI probe, `{{constructor.constructor('x')()}}`) stays as written; a near-miss of
 * the language (a misspelt helper, a wrong argument count, a bad literal regex) is an error, reported
 * at its exact line and column.
 */

export interface CompileOptions {
  /** Turn `\n` line endings into CRLF first, as nuclei does for raw requests and bodies. */
  readonly crlf?: boolean;
}

/** The compiled text of a scalar, or undefined after reporting why it does not compile. */
export function compileScalar(
  ctx: ParseContext,
  node: ScalarNode,
  path: Path,
  options: CompileOptions = {},
): TemplateString | undefined {
  const crlf = options.crlf === true && !node.text.includes('\r\n');
  const text = crlf ? node.text.replaceAll('\n', '\r\n') : node.text;
  const compiled = compileTemplateString(text);
  if (!(compiled instanceof DslSyntaxError)) return compiled;
  const offset = crlf ? offsetBeforeCrlf(text, compiled.offset) : compiled.offset;
  report(ctx, compiled, ctx.positionIn(node, offset), path);
  return undefined;
}

/**
 * The compiled text of a piece of a scalar (one line of a multi-line payload list) that starts at
 * `start` in the scalar's value.
 */
export function compileScalarPart(
  ctx: ParseContext,
  node: ScalarNode,
  start: number,
  text: string,
  path: Path,
): TemplateString | undefined {
  const compiled = compileTemplateString(text);
  if (!(compiled instanceof DslSyntaxError)) return compiled;
  report(ctx, compiled, ctx.positionIn(node, start + compiled.offset), path);
  return undefined;
}

/** The compiled form of text that does not come from the template file (a payload file's line). */
export function compileExternal(
  ctx: ParseContext,
  text: string,
  pos: Position,
  path: Path,
  where: string,
): TemplateString | undefined {
  const compiled = compileTemplateString(text);
  if (!(compiled instanceof DslSyntaxError)) return compiled;
  report(ctx, compiled, pos, path, `${where}: `);
  return undefined;
}

/** The empty text (an empty header value, a null variable or payload value). */
export const EMPTY_TEXT = compileTemplateString('') as TemplateString;

/**
 * An error where the placeholder is wrong; a helper nuclei has and keyhole does not implement makes
 * the template unsupported instead.
 */
function report(ctx: ParseContext, error: DslSyntaxError, pos: Position, path: Path, prefix = ''): void {
  if (error.unsupportedFunction !== undefined) {
    ctx.markUnsupported(`helper function ${error.unsupportedFunction}()`, pos, path);
  } else ctx.error(pos, path, prefix + error.message);
}

/** Maps an offset in text whose `\n` became `\r\n` back to the original text. */
function offsetBeforeCrlf(converted: string, offset: number): number {
  let inserted = 0;
  for (let i = converted.indexOf('\r\n'); i >= 0 && i < offset; i = converted.indexOf('\r\n', i + 2)) {
    inserted++;
  }
  return offset - inserted;
}
