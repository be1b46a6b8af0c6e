/**
 * Errors of the expression language. A syntax error is returned (not thrown) by the compilers, so a
 * template parser can collect every error of a file; an evaluation error is thrown by `evaluate`.
 */

/** Why an expression or a template text does not compile, and where (a 0-based offset into `source`). */
export class DslSyntaxError {
  constructor(
    readonly source: string,
    readonly offset: number,
    readonly message: string,
    /** The closest known name when an unknown function or operator looks like a typo. */
    readonly suggestion?: string,
    /**
     * A helper function nuclei has and this language does not implement yet: the expression is valid
     * for nuclei, and a template using it is unsupported rather than wrong.
     */
    readonly unsupportedFunction?: string,
  ) {}

  /** `message` followed by the source with a caret under the offending character. */
  describe(): string {
    const lineStart = this.source.lastIndexOf('\n', this.offset - 1) + 1;
    const nextBreak = this.source.indexOf('\n', this.offset);
    const line = this.source.slice(lineStart, nextBreak < 0 ? undefined : nextBreak);
    return `${this.message}\n  ${line}\n  ${' '.repeat(Math.max(0, this.offset - lineStart))}^`;
  }

  toString(): string {
    return this.message;
  }
}

export type DslEvaluationErrorKind =
  /** The expression reads a variable that the scope does not hold. */
  | 'unknown-variable'
  /** An operator got a value of a type it cannot use (`"a" - 1`, `1 && true`). */
  | 'type'
  /** A helper function rejected an argument (bad base64, malformed version, …). */
  | 'argument'
  /** A result would exceed a size limit (`repeat("a", 1e9)`). */
  | 'limit'
  /** A failure the language did not anticipate; always a bug worth reporting. */
  | 'internal';

/**
 * A runtime failure of an expression. Messages name variables, functions and types, never the values
 * involved: values can be secrets.
 */
export class DslEvaluationError extends Error {
  override readonly name = 'DslEvaluationError';

  constructor(
    message: string,
    readonly kind: DslEvaluationErrorKind = 'argument',
    /** For `unknown-variable`: the name that was not found. */
    readonly variable?: string,
  ) {
    super(message);
  }
}

export function unknownVariable(name: string): DslEvaluationError {
  return new DslEvaluationError(`unknown variable "${name}"`, 'unknown-variable', name);
}

export function argumentError(functionName: string, reason: string): DslEvaluationError {
  return new DslEvaluationError(`${functionName}: ${reason}`, 'argument');
}
