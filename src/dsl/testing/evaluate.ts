import {
  type CompiledExpression,
  compileExpression,
  DslEvaluationError,
  type DslSyntaxError,
  type DslValue,
} from '../index.js';

export type Variables = Readonly<Record<string, DslValue>>;

export function scopeOf(variables: Variables = {}): ReadonlyMap<string, DslValue> {
  return new Map(Object.entries(variables));
}

export function compiled(source: string): CompiledExpression {
  const expression = compileExpression(source);
  if (!('evaluate' in expression)) {
    throw new Error(`expected ${JSON.stringify(source)} to compile: ${expression.message}`);
  }
  return expression;
}

/** Compiles and evaluates, failing the test on a syntax error. */
export function evaluate(source: string, variables: Variables = {}): DslValue {
  return compiled(source).evaluate(scopeOf(variables));
}

/** The syntax error of a source that must not compile. */
export function syntaxError(source: string): DslSyntaxError {
  const expression = compileExpression(source);
  if ('evaluate' in expression) throw new Error(`expected ${JSON.stringify(source)} not to compile`);
  return expression;
}

/** The message of the evaluation error `run` must end with. */
export function evaluationFailure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DslEvaluationError)) throw error;
    return error.message;
  }
  throw new Error('expected an evaluation error');
}
