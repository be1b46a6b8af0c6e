import type { DslValue, TemplateString } from '../dsl/index.js';
import { GoRegex } from '../regex/index.js';
import { compileEach, type ErrorAt, errorsAt, type OperatorError } from './errors.js';
import { compileExpressions, compileWords, expressionNames, templateNames } from './expressions.js';
import type { Condition, Matcher } from './model.js';
import { type Evaluation, partNames } from './parts.js';
import { parseMarkup, XPathQuery } from './xpath.js';

/** Whether a matcher matched, and what it matched (words, regex matches) when it is not negative. */
export interface MatchOutcome {
  readonly matched: boolean;
  readonly snippets: readonly string[];
}

export interface CompiledMatcher {
  readonly model: Matcher;
  /** The variables the matcher reads. */
  readonly names: readonly string[];
  match(evaluation: Evaluation): MatchOutcome;
}

const NO_MATCH: MatchOutcome = { matched: false, snippets: [] };
const MATCHED: MatchOutcome = { matched: true, snippets: [] };

/** Compiles a matcher as nuclei's `CompileMatchers` does, or says what is wrong with it. */
export function compileMatcher(model: Matcher, index: number): CompiledMatcher | OperatorError[] {
  const errorAt = errorsAt('matcher', index);
  if (model.caseInsensitive && model.type !== 'word') {
    return [errorAt('case-insensitive', `is supported only by word matchers, not by ${model.type} matchers`)];
  }
  const matchPart = compileMatchPart(model, errorAt);
  if (Array.isArray(matchPart)) return matchPart;
  return {
    model,
    names: matcherNames(model),
    match: (evaluation) => {
      const outcome = matchPart(evaluation);
      // A part the response does not have fails the matcher, negative or not (nuclei's `Match`).
      if (outcome === undefined) return NO_MATCH;
      return model.negative ? { matched: !outcome.matched, snippets: [] } : outcome;
    },
  };
}

/** What a matcher reads: its part, the status, or the variables of its expressions and words. */
function matcherNames(model: Matcher): string[] {
  switch (model.type) {
    case 'status':
      return ['status_code'];
    case 'dsl':
      return model.dsl.flatMap(expressionNames);
    case 'word':
      return [...partNames(model.part), ...model.words.flatMap(templateNames)];
    default:
      return partNames(model.part);
  }
}

type MatchPart = (evaluation: Evaluation) => MatchOutcome | undefined;

function compileMatchPart(model: Matcher, errorAt: ErrorAt): MatchPart | OperatorError[] {
  switch (model.type) {
    case 'word':
      return wordMatcher(model.words, model, model.encoding === 'hex', errorAt);
    case 'regex':
      return regexMatcher(model.regex, model, errorAt);
    case 'binary':
      return binaryMatcher(model.binary, model, errorAt);
    case 'status':
      return (evaluation) => {
        const status = evaluation.variables.get('status_code');
        if (typeof status !== 'number' || !Number.isInteger(status)) return undefined;
        return { matched: model.status.includes(status), snippets: [] };
      };
    case 'size':
      return (evaluation) => {
        const length = evaluation.byteLength(model.part);
        return length === undefined ? undefined : { matched: model.size.includes(length), snippets: [] };
      };
    case 'xpath':
      return xpathMatcher(model.xpath, model, errorAt);
    case 'dsl':
      return dslMatcher(model.dsl, model, errorAt);
  }
}

interface Collecting {
  readonly condition: Condition;
  readonly matchAll: boolean;
}

/**
 * nuclei's loop over a matcher's values: under `and` the first value that is not found fails the
 * matcher; under `or` the first one found matches it, unless `match-all` collects every one found.
 */
function collect<T>(
  values: readonly T[],
  options: Collecting,
  find: (value: T) => readonly string[] | undefined,
): MatchOutcome {
  const matched: string[] = [];
  for (const [i, value] of values.entries()) {
    const found = find(value);
    if (found === undefined) {
      if (options.condition === 'and') return NO_MATCH;
      continue;
    }
    if (options.condition === 'or' && !options.matchAll) return { matched: true, snippets: found };
    matched.push(...found);
    if (i === values.length - 1 && !options.matchAll) return { matched: true, snippets: matched };
  }
  return options.matchAll && matched.length > 0 ? { matched: true, snippets: matched } : NO_MATCH;
}

type Word =
  | { readonly text: string }
  | { readonly template: TemplateString }
  | { readonly bytes: Buffer; readonly shown: string };

function wordMatcher(
  words: readonly string[],
  model: Matcher,
  hex: boolean,
  errorAt: ErrorAt,
): MatchPart | OperatorError[] {
  const templates = compileWords(words, errorAt);
  if (!templates.ok) return [...templates.errors];
  const compiled: Word[] = words.map((word, i) => {
    const decoded = hex ? decodeHex(word) : undefined;
    if (decoded !== undefined && decoded.length > 0) {
      return { bytes: model.caseInsensitive ? asciiLower(decoded) : decoded, shown: word };
    }
    const template = templates.values[i] as TemplateString;
    if (template.hasPlaceholders) return { template };
    return { text: model.caseInsensitive ? word.toLowerCase() : word };
  });
  return (evaluation) => {
    const corpus = model.caseInsensitive ? evaluation.lowerText(model.part) : evaluation.text(model.part);
    if (corpus === undefined) return undefined;
    return collect(compiled, model, (word) => {
      if ('bytes' in word) {
        const bytes = model.caseInsensitive
          ? evaluation.derive('lower-bytes', model.part, () => asciiLower(evaluation.bytesOf(model.part)!))
          : evaluation.bytesOf(model.part);
        return bytes?.includes(word.bytes) === true ? [word.shown] : undefined;
      }
      const text = 'text' in word ? word.text : rendered(word.template, evaluation, model.caseInsensitive);
      return corpus.includes(text) ? [text] : undefined;
    });
  };
}

/** A word with placeholders, rendered with the variables (unresolved ones stay as written). */
function rendered(template: TemplateString, evaluation: Evaluation, caseInsensitive: boolean): string {
  const text = template.render(evaluation.variables).text;
  return caseInsensitive ? text.toLowerCase() : text;
}

/**
 * nuclei's `MatchDSL`: every expression must be true under `and`, one is enough under `or`. An
 * expression that fails to evaluate fails the matcher under `and` and is skipped under `or`; one
 * whose value is not a boolean is skipped under either condition (so under `and` it cannot be the
 * expression that makes the matcher match). A `{{name}}` marker inside a string of an expression
 * (`contains(body, "{{token}}")`) is resolved from the variables as a value when the expression is
 * evaluated, which is what nuclei's `resolveDSLStringMarkers` does before evaluating.
 */
function dslMatcher(
  sources: readonly string[],
  model: Matcher,
  errorAt: ErrorAt,
): MatchPart | OperatorError[] {
  const compiled = compileExpressions(sources, errorAt);
  if (!compiled.ok) return [...compiled.errors];
  const expressions = compiled.values;
  const last = expressions.length - 1;
  return (evaluation) => {
    for (const [i, expression] of expressions.entries()) {
      let value: DslValue;
      try {
        value = expression.evaluate(evaluation.variables);
      } catch (error) {
        if (model.condition === 'and') return NO_MATCH;
        evaluation.onDslError?.(
          `dsl "${sources[i]}": ${error instanceof Error ? error.message : String(error)}`,
        );
        continue;
      }
      if (typeof value !== 'boolean') continue;
      if (!value) {
        if (model.condition === 'and') return NO_MATCH;
        continue;
      }
      if (model.condition === 'or' || i === last) return MATCHED;
    }
    return NO_MATCH;
  };
}

function regexMatcher(
  sources: readonly string[],
  model: Matcher,
  errorAt: ErrorAt,
): MatchPart | OperatorError[] {
  const { values: regexes, errors } = compileEach(sources, 'regex', errorAt, (source, refuse) => {
    const compiled = GoRegex.compile(source);
    return compiled instanceof GoRegex ? compiled : refuse(compiled.message);
  });
  if (errors.length > 0) return errors;
  const firstOnly = model.condition === 'or' && !model.matchAll;
  return (evaluation) => {
    const corpus = evaluation.text(model.part);
    if (corpus === undefined) return undefined;
    return collect(regexes, model, (regex) => {
      const found = regex.findAll(corpus, firstOnly ? 1 : -1).map((match) => match.groups[0] ?? '');
      return found.length > 0 ? found : undefined;
    });
  };
}

function binaryMatcher(
  values: readonly string[],
  model: Matcher,
  errorAt: ErrorAt,
): MatchPart | OperatorError[] {
  const { values: decoded, errors } = compileEach(values, 'binary', errorAt, (value, refuse) => {
    const bytes = decodeHex(value);
    return bytes === undefined
      ? refuse(`${JSON.stringify(value)} is not hexadecimal`)
      : { bytes, shown: value };
  });
  if (errors.length > 0) return errors;
  // Binary matchers have no `match-all`: the first value found matches under `or`.
  const options = { condition: model.condition, matchAll: false };
  return (evaluation) => {
    const bytes = evaluation.bytesOf(model.part);
    if (bytes === undefined) return undefined;
    return collect(decoded, options, (value) => (bytes.includes(value.bytes) ? [value.shown] : undefined));
  };
}

function xpathMatcher(
  expressions: readonly string[],
  model: Matcher,
  errorAt: ErrorAt,
): MatchPart | OperatorError[] {
  const { values: queries, errors } = compileEach(expressions, 'xpath', errorAt, (expression, refuse) => {
    const compiled = XPathQuery.compile(expression);
    return compiled instanceof XPathQuery ? compiled : refuse(compiled.message);
  });
  if (errors.length > 0) return errors;
  return (evaluation) => {
    if (evaluation.text(model.part) === undefined) return undefined;
    const document = evaluation.derive('markup', model.part, parseMarkup);
    if (document === undefined) return NO_MATCH;
    let found = 0;
    for (const query of queries) {
      const nodes = query.select(document);
      if (nodes.length === 0) {
        if (model.condition === 'and') return NO_MATCH;
        continue;
      }
      if (model.condition === 'or' && !model.matchAll) return { matched: true, snippets: [] };
      found += nodes.length;
    }
    return { matched: found > 0, snippets: [] };
  };
}

/** Go's `hex.DecodeString`: an even number of hex digits, either case; undefined otherwise. */
export function decodeHex(text: string): Buffer | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  return Buffer.from(text, 'hex');
}

function asciiLower(bytes: Buffer): Buffer {
  const lower = Buffer.from(bytes);
  for (let i = 0; i < lower.length; i++) {
    const byte = lower[i]!;
    if (byte >= 0x41 && byte <= 0x5a) lower[i] = byte + 0x20;
  }
  return lower;
}
