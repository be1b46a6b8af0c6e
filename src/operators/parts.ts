import { LayeredScope, textToBytes, toText } from '../dsl/index.js';
import type { Value } from './go-json.js';
import type { ResponseData } from './response.js';

/**
 * The variables of one evaluation, which extractors add to as they run, and the parts that
 * matchers and extractors select from them (nuclei's `getMatchPart`). Derived forms of a part
 * (bytes, lower case, a parsed document) are computed once per evaluation.
 */
export class Evaluation {
  /** The response's variables with what extractors set on top (the response's map is not copied). */
  readonly variables: LayeredScope;
  // Made when first needed: most evaluations extract nothing and read one or two parts.
  private extracted: Map<string, Value> | undefined;
  private texts: Map<string, string | undefined> | undefined;
  private derived: Map<string, unknown> | undefined;

  /** Told of a dsl expression that failed to evaluate under `or`. */
  readonly onDslError: ((message: string) => void) | undefined;

  constructor(data: ResponseData) {
    this.variables = new LayeredScope([data.variables]);
    this.onDslError = data.onDslError;
  }

  set(name: string, value: Value): void {
    if (this.extracted === undefined) {
      this.extracted = new Map();
      this.variables.addTop(this.extracted);
    }
    this.extracted.set(name, value);
    this.texts?.clear();
    this.derived?.clear();
  }

  /** The text of a part; undefined when the response has no such part. */
  text(part: string): string | undefined {
    const name = partName(part);
    this.texts ??= new Map();
    if (this.texts.has(name)) return this.texts.get(name);
    const text = this.computeText(name);
    this.texts.set(name, text);
    return text;
  }

  /** The exact bytes of a part. */
  bytesOf(part: string): Buffer | undefined {
    return this.derive('bytes', part, textToBytes);
  }

  lowerText(part: string): string | undefined {
    return this.derive('lower', part, (text) => text.toLowerCase());
  }

  /** Length in bytes of a part, as Go's `len` of the part string. */
  byteLength(part: string): number | undefined {
    return this.bytesOf(part)?.length;
  }

  /** A value computed from a part's text once per evaluation. */
  derive<T>(kind: string, part: string, compute: (text: string) => T): T | undefined {
    const key = `${kind}\0${partName(part)}`;
    this.derived ??= new Map();
    if (this.derived.has(key)) return this.derived.get(key) as T | undefined;
    const text = this.text(part);
    const value = text === undefined ? undefined : compute(text);
    this.derived.set(key, value);
    return value;
  }

  private computeText(name: string): string | undefined {
    // `all` is always the body followed by the header dump, whatever a variable of that name holds.
    if (name === 'all')
      return toText(this.variables.get('body') ?? '') + toText(this.variables.get('all_headers') ?? '');
    const value = this.variables.get(name);
    return value === undefined ? undefined : toText(value);
  }
}

/** The variables a `part:` reads (`all` is the body and the header dump). */
export function partNames(part: string): string[] {
  const name = partName(part);
  return name === 'all' ? ['all', 'body', 'all_headers'] : [name];
}

/** `part:` as nuclei resolves it: empty means `body`, `header` means `all_headers`. */
export function partName(part: string): string {
  if (part === '') return 'body';
  if (part === 'header') return 'all_headers';
  return part;
}
