/**
 * A matcher or extractor that cannot be compiled. It names the operator (by its position in the
 * template's `matchers` or `extractors` list), the field and, for list fields, the value's position,
 * so that the template parser can point at the file, line and column.
 */
export interface OperatorError {
  readonly operator: 'matcher' | 'extractor';
  readonly index: number;
  /** The template field at fault, as written in YAML: `regex`, `binary`, `json`, `case-insensitive`, … */
  readonly field: string;
  readonly valueIndex?: number;
  /** Where in the value the problem is (0-based), when it is known: the unknown function of an expression. */
  readonly offset?: number;
  readonly message: string;
  /**
   * Set when the value is valid for nuclei but uses something keyhole does not run yet (a helper
   * function it does not implement): the template is unsupported rather than wrong.
   */
  readonly unsupported?: string;
}

/** `matchers[0].regex[1]: invalid regular expression …` */
export function formatOperatorError(error: OperatorError): string {
  const value = error.valueIndex === undefined ? '' : `[${error.valueIndex}]`;
  return `${error.operator}s[${error.index}].${error.field}${value}: ${error.message}`;
}

export type ErrorAt = (
  field: string,
  message: string,
  valueIndex?: number,
  offset?: number,
  unsupported?: string,
) => OperatorError;

export function errorsAt(operator: OperatorError['operator'], index: number): ErrorAt {
  return (field, message, valueIndex, offset, unsupported) => ({
    operator,
    index,
    field,
    ...(valueIndex === undefined ? {} : { valueIndex }),
    ...(offset === undefined ? {} : { offset }),
    message,
    ...(unsupported === undefined ? {} : { unsupported }),
  });
}

/**
 * Compiles each value of a list field (`regex`, `xpath`, `json`, `binary`): the values that compiled,
 * in order, and an error at the position of each one that `compile` refused.
 */
export function compileEach<T>(
  values: readonly string[],
  field: string,
  errorAt: ErrorAt,
  compile: (value: string, refuse: (message: string) => undefined) => T | undefined,
): { readonly values: T[]; readonly errors: OperatorError[] } {
  const out: T[] = [];
  const errors: OperatorError[] = [];
  for (const [i, value] of values.entries()) {
    const compiled = compile(value, (message) => {
      errors.push(errorAt(field, message, i));
      return undefined;
    });
    if (compiled !== undefined) out.push(compiled);
  }
  return { values: out, errors };
}
