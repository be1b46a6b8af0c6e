import { DslEvaluationError, type DslValue, toText } from '../dsl/index.js';
import { GoRegex } from '../regex/index.js';
import { compileEach, type ErrorAt, errorsAt, type OperatorError } from './errors.js';
import { compileExpressions, expressionNames } from './expressions.js';
import type { Value } from './go-json.js';
import { JqQuery } from './jq.js';
import type { Extractor } from './model.js';
import { type Evaluation, partNames } from './parts.js';
import { parseMarkup, XPathQuery } from './xpath.js';

export interface CompiledExtractor {
  readonly model: Extractor;
  /** The variables the extractor reads; `any` when it reads them all (case-insensitive kval). */
  readonly names: readonly string[] | 'any';
  /** The distinct values extracted, in the order found. */
  extract(evaluation: Evaluation): string[];
}

/** Compiles an extractor as nuclei's `CompileExtractors` does, or says what is wrong with it. */
export function compileExtractor(model: Extractor, index: number): CompiledExtractor | OperatorError[] {
  const errorAt = errorsAt('extractor', index);
  if (model.caseInsensitive && model.type !== 'kval') {
    return [
      errorAt('case-insensitive', `is supported only by kval extractors, not by ${model.type} extractors`),
    ];
  }
  const extract = compileExtract(model, errorAt);
  if (Array.isArray(extract)) return extract;
  return { model, names: extractorNames(model), extract: (evaluation) => distinct(extract(evaluation)) };
}

/** The values in order, each once (no set is made for none or one value, the usual case). */
function distinct(values: Iterable<string>): string[] {
  const out: string[] = [];
  let seen: Set<string> | undefined;
  for (const value of values) {
    if (out.length === 0) {
      out.push(value);
      continue;
    }
    seen ??= new Set(out);
    if (seen.has(value)) continue;
    seen.add(value);
    out.push(value);
  }
  return out;
}

function extractorNames(model: Extractor): string[] | 'any' {
  switch (model.type) {
    case 'kval':
      if (model.caseInsensitive) return 'any';
      return model.kval.flatMap((key) => [key.toLowerCase(), key.toLowerCase().replaceAll('-', '_')]);
    case 'dsl':
      return model.dsl.flatMap(expressionNames);
    default:
      return partNames(model.part);
  }
}

type Extract = (evaluation: Evaluation) => Iterable<string>;

function compileExtract(model: Extractor, errorAt: ErrorAt): Extract | OperatorError[] {
  switch (model.type) {
    case 'regex':
      return regexExtractor(model.regex, model.group, model.part, errorAt);
    case 'kval':
      return kvalExtractor(model.kval, model.caseInsensitive);
    case 'json':
      return jsonExtractor(model.json, model.part, errorAt);
    case 'xpath':
      return xpathExtractor(model.xpath, model.attribute, model.part, errorAt);
    case 'dsl':
      return dslExtractor(model.dsl, errorAt);
  }
}

function regexExtractor(
  sources: readonly string[],
  group: number,
  part: string,
  errorAt: ErrorAt,
): Extract | OperatorError[] {
  const { values: regexes, errors } = compileEach(sources, 'regex', errorAt, (source, refuse) => {
    const compiled = GoRegex.compile(source);
    return compiled instanceof GoRegex ? compiled : refuse(compiled.message);
  });
  if (!Number.isInteger(group) || group < 0)
    errors.unshift(errorAt('group', `must be a whole number 0 or more, not ${group}`));
  if (errors.length > 0) return errors;
  return function* (evaluation) {
    const corpus = evaluation.text(part);
    if (corpus === undefined) return;
    for (const regex of regexes) {
      // A group the regex does not have extracts nothing; one that did not take part extracts "".
      if (group > regex.groupCount) continue;
      for (const match of regex.findAll(corpus)) yield match.groups[group] ?? '';
    }
  };
}

/**
 * Values of the variables map by key (header names with `-` as `_`, cookie names, …). Keys are
 * lower-cased as nuclei does; a key written with `-` also finds the `_` form of a header name.
 */
function kvalExtractor(keys: readonly string[], caseInsensitive: boolean): Extract {
  const lowerKeys = keys.map((key) => key.toLowerCase());
  return function* (evaluation) {
    const variables = caseInsensitive ? lowered(evaluation.variables) : evaluation.variables;
    for (const key of lowerKeys) {
      const value = variables.get(key) ?? variables.get(key.replaceAll('-', '_'));
      if (value !== undefined) yield toText(value);
    }
  };
}

function lowered(variables: ReadonlyMap<string, Value>): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const [key, value] of variables)
    out.set(key.toLowerCase(), typeof value === 'string' ? value.toLowerCase() : value);
  return out;
}

function jsonExtractor(
  queries: readonly string[],
  part: string,
  errorAt: ErrorAt,
): Extract | OperatorError[] {
  const { values: compiled, errors } = compileEach(queries, 'json', errorAt, (query, refuse) => {
    const compiled = JqQuery.compile(query);
    return compiled instanceof JqQuery ? compiled : refuse(compiled.message);
  });
  if (errors.length > 0) return errors;
  return function* (evaluation) {
    const corpus = evaluation.text(part);
    if (corpus === undefined) return;
    for (const jq of compiled) yield* jq.run(corpus);
  };
}

function xpathExtractor(
  expressions: readonly string[],
  attribute: string | undefined,
  part: string,
  errorAt: ErrorAt,
): Extract | OperatorError[] {
  const { values: queries, errors } = compileEach(expressions, 'xpath', errorAt, (expression, refuse) => {
    const compiled = XPathQuery.compile(expression);
    return compiled instanceof XPathQuery ? compiled : refuse(compiled.message);
  });
  if (errors.length > 0) return errors;
  return function* (evaluation) {
    const document = evaluation.derive('markup', part, parseMarkup);
    if (document === undefined) return;
    for (const query of queries) {
      for (const node of query.select(document)) {
        yield attribute === undefined || attribute === '' ? node.innerText() : node.attribute(attribute);
      }
    }
  };
}

/**
 * nuclei's `ExtractDSL`: the text of each expression's value (empty values and nulls skipped). An
 * expression reading a variable the response does not have is skipped; any other evaluation error
 * ends the extraction, keeping the values found before it.
 */
function dslExtractor(sources: readonly string[], errorAt: ErrorAt): Extract | OperatorError[] {
  const compiled = compileExpressions(sources, errorAt);
  if (!compiled.ok) return [...compiled.errors];
  const expressions = compiled.values;
  return function* (evaluation) {
    for (const expression of expressions) {
      let value: DslValue;
      try {
        value = expression.evaluate(evaluation.variables);
      } catch (error) {
        if (error instanceof DslEvaluationError && error.kind === 'unknown-variable') continue;
        return;
      }
      const text = toText(value);
      if (text !== '') yield text;
    }
  };
}
