import { createRequire } from 'node:module';
import { toText } from '../dsl/index.js';
import { goJson } from './go-json.js';

/**
 * jq queries for `json` extractors. nuclei runs them with gojq; keyhole runs jq itself (jq-web: the
 * jq C sources compiled to WebAssembly, shipped inside the npm package), because the pure
 * JavaScript jq implementations on npm get core operators wrong (`//`, errors on bad indexes) or
 * lack recursion and path functions. Results are then turned into text as nuclei does.
 */
interface JqRuntime {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

const require = createRequire(import.meta.url);
const runtime = await (require('jq-web') as Promise<JqRuntime>);

/** How many verdicts of {@link JqQuery.compile} are remembered. */
const CHECKED_KEPT = 1024;
const checked = new Map<string, JqQuery | JqSyntaxError>();

export class JqSyntaxError {
  constructor(
    readonly query: string,
    readonly reason: string,
  ) {}

  get message(): string {
    return `invalid jq query ${JSON.stringify(this.query)}: ${this.reason}`;
  }
}

export class JqQuery {
  private constructor(readonly query: string) {}

  /**
   * Checks the query without running it (syntax, unknown functions and variables). A check runs
   * jq whole, so the verdicts on the last queries checked are remembered: a library's templates
   * repeat their queries, and a scan compiles each template again when its runs start.
   */
  static compile(query: string): JqQuery | JqSyntaxError {
    const known = checked.get(query);
    if (known !== undefined) return known;
    let verdict: JqQuery | JqSyntaxError;
    try {
      run('null', `empty | (${query})`, ['-n']);
      verdict = new JqQuery(query);
    } catch (error) {
      verdict = new JqSyntaxError(query, jqReason(error));
    }
    if (checked.size >= CHECKED_KEPT) checked.delete(checked.keys().next().value as string);
    checked.set(query, verdict);
    return verdict;
  }

  /**
   * The results of the query on a JSON text, as nuclei's `ExtractJSON` reports them: nothing when
   * the text is not one JSON value; results up to the first runtime error; strings as they are,
   * other scalars as Go prints them, arrays and objects as Go's JSON.
   */
  run(json: string): string[] {
    let document: unknown;
    try {
      document = JSON.parse(json);
    } catch {
      return [];
    }
    let output: string | undefined;
    try {
      // `try` ends the stream at the first error and keeps what came before, as gojq's iterator.
      output = run(JSON.stringify(document), `try (${this.query})`, ['-c']);
    } catch {
      return [];
    }
    if (output === undefined || output === '') return [];
    return output.split('\n').map((line) => resultText(JSON.parse(line) as unknown));
  }
}

function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return toText(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return '';
  return goJson(value);
}

/**
 * Runs jq with the process's exit code and console kept as they were: the WebAssembly runtime sets
 * `process.exitCode` when jq exits non-zero and prints jq's stderr (e.g. `debug`) as a warning.
 */
function run(input: string, filter: string, flags: string[]): string | undefined {
  const exitCode = process.exitCode;
  const warn = console.warn;
  console.warn = () => {};
  try {
    return runtime.raw(input, filter, flags);
  } finally {
    console.warn = warn;
    process.exitCode = exitCode;
  }
}

function jqReason(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' ? stderr : error instanceof Error ? error.message : String(error);
  const first = text.split('\n').find((line) => line.startsWith('jq: error')) ?? text.split('\n')[0] ?? text;
  return first
    .replace(/^jq: error: /, '')
    .replace(/ \(Unix shell quoting issues\?\)/, '')
    .replace(/ at <top-level>, line \d+:?$/, '');
}
