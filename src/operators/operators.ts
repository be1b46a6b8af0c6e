import { replaceInvalidBytes } from '../dsl/index.js';
import type { OperatorError } from './errors.js';
import { type CompiledExtractor, compileExtractor } from './extractors.js';
import type { Value } from './go-json.js';
import { type CompiledMatcher, compileMatcher } from './matchers.js';
import type { Operators } from './model.js';
import { Evaluation } from './parts.js';
import type { ResponseData } from './response.js';

/** The outcome of a template's operators on one response (nuclei's `operators.Result`). */
export interface OperatorResult {
  /**
   * nuclei's `Execute` produced a result: the matchers matched, or extractors produced values, or
   * internal extractors produced values for later requests (even when the matchers failed).
   */
  readonly hasResult: boolean;
  readonly matched: boolean;
  /** Non-internal extractors produced values. */
  readonly extracted: boolean;
  /** What each named matcher matched, for matchers that matched under `matchers-condition: or`. */
  readonly matches: ReadonlyMap<string, readonly string[]>;
  /** Values of each named non-internal extractor. */
  readonly extracts: ReadonlyMap<string, readonly string[]>;
  /** Distinct values of all non-internal extractors, in order: the event's `extracted-results`. */
  readonly outputExtracts: readonly string[];
  /** Values of internal extractors by name, passed to later requests. */
  readonly dynamicValues: ReadonlyMap<string, readonly string[]>;
  /** The variables after extraction, with extracted values under the extractors' names. */
  readonly variables: ReadonlyMap<string, Value>;
  /** The findings (result events) to report for this response; empty when there are none. */
  readonly findings: readonly Finding[];
}

/** One result event, as nuclei's `MakeDefaultResultEvent` splits a result into events. */
export interface Finding {
  readonly matcherName?: string;
  readonly extractorName?: string;
  readonly extractedResults: readonly string[];
}

export interface ExecuteOptions {
  /**
   * Only the findings are wanted (not the extracted values of a response whose matchers failed):
   * when every matcher must match, none reads an extractor's value and no extractor is internal,
   * the matchers run first and the extractors only when they all matched. The findings are the
   * same; a failed response's result then carries no extracted values.
   */
  readonly findingsOnly?: boolean;
}

export interface CompiledOperators {
  readonly model: Operators;
  /** The variables the matchers and extractors read, or `any` when they may read every one. */
  readonly names: ReadonlySet<string> | 'any';
  execute(data: ResponseData, options?: ExecuteOptions): OperatorResult;
}

/** Compiles a template's matchers and extractors, or lists everything wrong with them. */
export function compileOperators(model: Operators): CompiledOperators | OperatorError[] {
  const errors: OperatorError[] = [];
  const matchers: CompiledMatcher[] = [];
  const extractors: CompiledExtractor[] = [];
  for (const [i, matcher] of model.matchers.entries()) {
    const compiled = compileMatcher(matcher, i);
    if (Array.isArray(compiled)) errors.push(...compiled);
    else matchers.push(compiled);
  }
  for (const [i, extractor] of model.extractors.entries()) {
    const compiled = compileExtractor(extractor, i);
    if (Array.isArray(compiled)) errors.push(...compiled);
    else extractors.push(compiled);
  }
  if (errors.length > 0) return errors;
  const matchersFirst = canMatchFirst(model, matchers, extractors);
  return {
    model,
    names: namesOf([...matchers, ...extractors]),
    execute: (data, options) => {
      const evaluation = new Evaluation(data);
      if (!matchersFirst || options?.findingsOnly !== true) {
        return execute(model, matchers, extractors, evaluation);
      }
      if (!allMatch(matchers, evaluation)) return resultOf(model, emptyCollected(), evaluation, false);
      // They all matched, and none reads what the extractors add: their verdict stands.
      return execute(model, [], extractors, evaluation, true);
    },
  };
}

/** Every matcher must match, none reads what an extractor extracts, and no extractor is internal. */
function canMatchFirst(
  model: Operators,
  matchers: readonly CompiledMatcher[],
  extractors: readonly CompiledExtractor[],
): boolean {
  if (model.matchersCondition !== 'and' || matchers.length === 0 || extractors.length === 0) return false;
  if (extractors.some((extractor) => extractor.model.internal)) return false;
  const extracted = new Set(extractors.map((extractor) => extractor.model.name ?? ''));
  return matchers.every((matcher) => !matcher.names.some((name) => extracted.has(name)));
}

function allMatch(matchers: readonly CompiledMatcher[], evaluation: Evaluation): boolean {
  return matchers.every((matcher) => matcher.match(evaluation).matched);
}

function emptyCollected(): Collected {
  return {
    matched: false,
    matches: undefined,
    extracts: undefined,
    outputExtracts: [],
    dynamicValues: undefined,
  };
}

function namesOf(
  operators: readonly { readonly names: readonly string[] | 'any' }[],
): ReadonlySet<string> | 'any' {
  const names = new Set<string>();
  for (const operator of operators) {
    if (operator.names === 'any') return 'any';
    for (const name of operator.names) names.add(name);
  }
  return names;
}

/** Shared by results that have none of a kind (results hand their maps out read-only). */
const NONE: ReadonlyMap<string, never> = new Map<string, never>();
const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/** What an evaluation found so far; the maps are made when something goes in them. */
interface Collected {
  matched: boolean;
  matches: Map<string, readonly string[]> | undefined;
  extracts: Map<string, readonly string[]> | undefined;
  readonly outputExtracts: string[];
  dynamicValues: Map<string, string[]> | undefined;
}

/** nuclei's `Operators.Execute`: extractors first (their values visible to matchers), then matchers. */
function execute(
  model: Operators,
  matchers: readonly CompiledMatcher[],
  extractors: readonly CompiledExtractor[],
  evaluation: Evaluation,
  /** Every matcher of an `and` condition matched already (`matchers` is then empty). */
  matchedAlready = false,
): OperatorResult {
  const collected = emptyCollected();
  collected.matched = matchedAlready;
  runExtractors(extractors, evaluation, collected);
  if (collected.dynamicValues !== undefined) exposeDynamicValues(collected.dynamicValues, evaluation);
  const dynamic = collected.dynamicValues !== undefined;

  for (const matcher of matchers) {
    const outcome = matcher.match(evaluation);
    if (outcome.matched) {
      const name = matcher.model.name;
      if (model.matchersCondition === 'or' && name !== undefined && name !== '' && !matcher.model.internal) {
        collected.matches ??= new Map();
        collected.matches.set(name, outcome.snippets);
      }
      collected.matched = true;
    } else if (model.matchersCondition === 'and') {
      collected.matched = false;
      return resultOf(model, collected, evaluation, dynamic);
    }
  }

  const allInternal = extractors.every((extractor) => extractor.model.internal);
  const hasResult =
    (dynamic && allInternal) ||
    (matchers.length > 0 && !collected.matched
      ? dynamic
      : collected.extracts !== undefined ||
        collected.outputExtracts.length > 0 ||
        collected.matched ||
        dynamic);
  return resultOf(model, collected, evaluation, hasResult);
}

function runExtractors(
  extractors: readonly CompiledExtractor[],
  evaluation: Evaluation,
  collected: Collected,
): void {
  let seen: Set<string> | undefined;
  for (const extractor of extractors) {
    const { name = '', internal } = extractor.model;
    const values = extractor.extract(evaluation);
    if (values.length === 0) continue;
    if (internal) {
      collected.dynamicValues ??= new Map();
      const dynamic = collected.dynamicValues.get(name);
      if (dynamic === undefined) collected.dynamicValues.set(name, [...values]);
      else dynamic.push(...values);
    } else {
      // Reported values are printable text; variables and dynamic values keep the exact bytes.
      const shown = [...new Set(values.map(replaceInvalidBytes))];
      seen ??= new Set();
      for (const value of shown) {
        if (seen.has(value)) continue;
        seen.add(value);
        collected.outputExtracts.push(value);
      }
      if (name !== '') {
        collected.extracts ??= new Map();
        collected.extracts.set(name, shown);
      }
    }
    evaluation.set(name, values.length === 1 ? values[0]! : values);
  }
}

/** Internal values become variables for the matchers: `name`, and `name0`, `name1`, … when several. */
function exposeDynamicValues(
  dynamicValues: ReadonlyMap<string, readonly string[]>,
  evaluation: Evaluation,
): void {
  for (const [name, values] of dynamicValues) {
    if (values.length === 1) {
      evaluation.set(name, values[0]!);
      continue;
    }
    for (const [i, value] of values.entries()) evaluation.set(`${name}${i}`, value);
    evaluation.set(name, values);
  }
}

function resultOf(
  model: Operators,
  collected: Collected,
  evaluation: Evaluation,
  hasResult: boolean,
): OperatorResult {
  const result: { -readonly [K in keyof OperatorResult]: OperatorResult[K] } = {
    hasResult,
    matched: collected.matched,
    extracted: collected.outputExtracts.length > 0,
    matches: collected.matches ?? NONE,
    extracts: collected.extracts ?? NONE,
    outputExtracts: collected.outputExtracts,
    dynamicValues: collected.dynamicValues ?? NONE,
    variables: evaluation.variables,
    findings: NO_FINDINGS,
  };
  result.findings = findingsOf(model, result);
  return result;
}

/**
 * nuclei's `MakeDefaultResultEvent`: no event for a response that only fed internal values, nor
 * for one whose matchers failed; one event per named matcher that matched; else one per named
 * extractor with its values; else one. Templates whose matchers are all internal report nothing.
 */
function findingsOf(model: Operators, result: Omit<OperatorResult, 'findings'>): readonly Finding[] {
  if (!result.hasResult) return NO_FINDINGS;
  if (result.dynamicValues.size > 0 && !result.matched) return NO_FINDINGS;
  const extracted = result.extracts.size > 0 || result.outputExtracts.length > 0;
  if (model.matchers.length > 0 && !result.matched && extracted) return NO_FINDINGS;
  if (model.matchers.length > 0 && model.matchers.every((matcher) => matcher.internal)) return NO_FINDINGS;
  const extractedResults = result.outputExtracts;
  if (result.matches.size > 0)
    return [...result.matches.keys()].map((matcherName) => ({ matcherName, extractedResults }));
  if (result.extracts.size > 0) {
    return [...result.extracts].map(([extractorName, values]) => ({
      extractorName,
      extractedResults: values,
    }));
  }
  return [{ extractedResults }];
}
