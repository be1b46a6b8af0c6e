import {
  type CompiledExpression,
  compileExpression,
  compileTemplateString,
  DslSyntaxError,
  type TemplateString,
} from '../dsl/index.js';
import type { ErrorAt, OperatorError } from './errors.js';

/** Every value compiled, or every error found. */
export type CompiledValues<T> =
  | { readonly ok: true; readonly values: readonly T[] }
  | { readonly ok: false; readonly errors: readonly OperatorError[] };

/** The `dsl:` values of a matcher or extractor, compiled once; every error at its value and offset. */
export function compileExpressions(
  sources: readonly string[],
  errorAt: ErrorAt,
): CompiledValues<CompiledExpression> {
  const errors: OperatorError[] = [];
  const compiled: CompiledExpression[] = [];
  for (const [i, source] of sources.entries()) {
    const expression = compileExpression(source);
    if (expression instanceof DslSyntaxError) {
      errors.push(syntaxError(errorAt, 'dsl', i, expression, expressionMessage(expression)));
    } else compiled.push(expression);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: compiled };
}

/**
 * Words with their `{{…}}` placeholders compiled, as nuclei renders words with the variables before
 * matching. Text that only looks like a placeholder (`{{7*7}}`) stays as written.
 */
export function compileWords(words: readonly string[], errorAt: ErrorAt): CompiledValues<TemplateString> {
  const errors: OperatorError[] = [];
  const compiled: TemplateString[] = [];
  for (const [i, word] of words.entries()) {
    const template = compileTemplateString(word);
    if (template instanceof DslSyntaxError) {
      errors.push(syntaxError(errorAt, 'words', i, template, template.message));
    } else compiled.push(template);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: compiled };
}

/**
 * The variables an expression reads (none when it does not compile). A name with `-` may also be
 * read as an expression (`{{a-b}}` is `a - b` when there is no variable `a-b`): its parts count too.
 */
export function expressionNames(source: string): string[] {
  const expression = compileExpression(source);
  return expression instanceof DslSyntaxError ? [] : expression.variables.flatMap(withHyphenParts);
}

/** The variables the placeholders of a text read. */
export function templateNames(text: string): string[] {
  const template = compileTemplateString(text);
  return template instanceof DslSyntaxError ? [] : template.variables.flatMap(withHyphenParts);
}

function withHyphenParts(name: string): string[] {
  return name.includes('-') ? [name, ...name.split('-')] : [name];
}

function syntaxError(
  errorAt: ErrorAt,
  field: string,
  index: number,
  error: DslSyntaxError,
  message: string,
): OperatorError {
  const unsupported =
    error.unsupportedFunction === undefined ? undefined : `helper function ${error.unsupportedFunction}()`;
  return errorAt(field, message, index, error.offset, unsupported);
}

function expressionMessage(error: DslSyntaxError): string {
  if (error.source.startsWith('{{', error.offset)) {
    return (
      `${error.message}; a {{…}} placeholder in an expression goes inside a string ("{{name}}"), ` +
      'or use the variable by its name'
    );
  }
  if (error.message.startsWith('unknown function') && error.suggestion === undefined) {
    return `${error.message}; it is not one of the helper functions of nuclei's expression language`;
  }
  return error.message;
}
