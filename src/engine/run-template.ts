/**
 * Runs a template against one target: the blocks one after another (values shared between them), or
 * as its `flow:` says; events streamed as found; with `-ms`, one `matcher-status: false` event when
 * nothing matched (nuclei's `WriteFailure`, built from the last response evaluated).
 */
import { CookieJar } from '../http/index.js';
import { parseTargetUrl, TargetError, type TargetUrl } from '../targets/index.js';
import { newRandstr, type ParsedTemplate, type Template, targetVariables } from '../template/index.js';
import { type RunState, runBlock } from './block.js';
import { compiledVariables } from './compiled.js';
import { eventInfo, failureEvent, inputFields, inputPart, rfc3339 } from './event.js';
import { runFlow } from './flow.js';
import { evaluateTemplateVariables, type Value } from './scope.js';
import type { RunOptions, TemplateRun } from './types.js';

/** A template as the engine runs it: parsed, with its per-run random names when it has any. */
export type RunnableTemplate = Template & Partial<Pick<ParsedTemplate, 'randstrNames'>>;

/**
 * Runs `template` against `target` (a URL with an http or https scheme). A self-contained template
 * may run without a target (its requests name their own URLs). Rejects with a `TargetError` for a
 * target it cannot use, before any request.
 */
export async function runTemplate(
  template: RunnableTemplate,
  target: string | undefined,
  options: RunOptions,
): Promise<TemplateRun> {
  const parsedTarget = parseInput(template, target);
  const state = initialState(template, parsedTarget, target ?? '', options);
  if (template.flow !== undefined) {
    await runFlow(state, template);
  } else {
    for (const block of template.http) {
      if (state.outcome.aborted || options.signal?.aborted === true) {
        state.outcome.aborted = true;
        break;
      }
      await runBlock(state, block);
      if (template.stopAtFirstMatch && state.outcome.matched) break;
    }
  }
  if (options.matcherStatus === true && !state.outcome.matched) writeFailure(state);
  return {
    templateId: template.id,
    target: target ?? '',
    matched: state.outcome.matched,
    events: state.outcome.events,
    requests: state.outcome.requests,
    failures: state.outcome.failures,
    skipped: state.outcome.skipped,
    aborted: state.outcome.aborted,
    ...(state.outcome.lastStatus === undefined ? {} : { lastStatus: state.outcome.lastStatus }),
    ...(state.outcome.flowError === undefined ? {} : { flowError: state.outcome.flowError }),
  };
}

/**
 * With `-ms`, nuclei's failure event: from the last response evaluated, with the last transport
 * failure as its `error`; a run whose every request failed gets one too.
 */
function writeFailure(state: RunState): void {
  const { outcome, given } = state;
  const failure = outcome.failures.findLast((f) => f.kind === 'transport');
  if (outcome.lastUnmatched === undefined && failure === undefined) return;
  const now = (given.options.now ?? (() => new Date()))();
  const event = failureEvent(given.base, outcome.lastUnmatched, rfc3339(now), failure?.message);
  outcome.events.push(event);
  given.options.onEvent?.(event);
}

function parseInput(template: RunnableTemplate, target: string | undefined): TargetUrl | undefined {
  if (target === undefined || target === '') {
    if (template.selfContained) return undefined;
    throw new TargetError(target ?? '', 'the template needs a target; give a URL like https://app.example');
  }
  const parsed = parseTargetUrl(target);
  if (parsed instanceof TargetError) throw parsed;
  if (parsed.scheme !== 'http' && parsed.scheme !== 'https') {
    throw new TargetError(
      target,
      parsed.scheme === ''
        ? `"${target}" has no scheme; give http://${target} or https://${target}`
        : `"${target}" is not an http or https URL`,
    );
  }
  return parsed;
}

const NO_VALUES: ReadonlyMap<string, Value> = new Map();
/** `-var` values as a map, made once for all the runs that share them. */
const optionMaps = new WeakMap<Readonly<Record<string, string>>, ReadonlyMap<string, Value>>();

function optionValuesOf(variables: Readonly<Record<string, string>> | undefined): ReadonlyMap<string, Value> {
  if (variables === undefined) return NO_VALUES;
  let values = optionMaps.get(variables);
  if (values === undefined) {
    values = new Map(Object.entries(variables));
    optionMaps.set(variables, values);
  }
  return values;
}

/** The template's `constants:` and its per-run random names (`randstr`). */
function runConstants(template: RunnableTemplate): ReadonlyMap<string, Value> {
  const random = template.randstrNames ?? [];
  if (random.length === 0) return template.constants.size === 0 ? NO_VALUES : template.constants;
  const constants = new Map<string, Value>(template.constants);
  for (const name of random) constants.set(name, newRandstr());
  return constants;
}

function initialState(
  template: RunnableTemplate,
  target: TargetUrl | undefined,
  input: string,
  options: RunOptions,
): RunState {
  const optionValues = optionValuesOf(options.variables);
  const constants = runConstants(template);
  const targetValues =
    target === undefined ? undefined : new Map<string, Value>(Object.entries(targetVariables(target)));
  const known = new Map<string, Value>(targetValues);
  for (const [name, value] of optionValues) known.set(name, value);
  for (const [name, value] of constants) known.set(name, value);
  // Trimming the path's trailing slash changes nothing when there is none: one map serves both.
  const trimmedValues = target?.path.endsWith('/') === false ? targetValues : undefined;
  const fields = inputFields(target);
  return {
    given: {
      options,
      target,
      base: {
        templateId: template.id,
        templatePath: template.file,
        info: eventInfo(template.info),
        input,
        fields,
        inputPart: inputPart(fields),
      },
      jar: new CookieJar(),
      variables: evaluateTemplateVariables(compiledVariables(template), known),
      optionValues,
      constants,
      shareContext: template.flow !== undefined ? 'flow' : template.http.length > 1 ? 'blocks' : 'none',
      templateStopAtFirstMatch: template.stopAtFirstMatch,
    },
    shared: { context: new Map(), previous: new Map() },
    outcome: {
      events: [],
      failures: [],
      skipped: [],
      matched: false,
      requests: 0,
      aborted: false,
      lastStatus: undefined,
      flowError: undefined,
      lastUnmatched: undefined,
    },
    targetValues: { byOrigin: new Map(), ofRunTarget: [targetValues, trimmedValues] },
  };
}
