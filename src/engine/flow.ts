/**
 * Runs a template's `flow:`. A chain of `http(N)` joined by `&&` / `||` is evaluated directly; any
 * other flow runs as JavaScript in the sandbox, with nuclei's bindings: `http(…)` runs blocks and is
 * true as nuclei defines it, `set(name, value)` adds to the template context that requests render
 * with, `template[name]` reads it (extracted values: one value as itself, several as a list).
 */
import {
  DEFAULT_FLOW_LIMITS,
  type FlowHost,
  FlowHostError,
  type FlowValue,
  runFlowScript,
} from '../flow/index.js';
import { type FlowExpression, flowBlockIndex, type Template, targetVariables } from '../template/index.js';
import { type RunState, runBlock } from './block.js';
import { requestScope, type Value } from './scope.js';
import type { FlowRunLimits } from './types.js';

/** Most blocks a flow may run for one target: a loop that never ends must still end. */
export const DEFAULT_FLOW_BLOCK_RUNS = 10_000;

export async function runFlow(state: RunState, template: Template): Promise<void> {
  const flow = template.flow;
  if (flow === undefined) return;
  if (flow.expression !== undefined) {
    await evaluateChain(state, template, flow.expression);
    return;
  }
  const limits: FlowRunLimits = {
    ...DEFAULT_FLOW_LIMITS,
    blockRuns: DEFAULT_FLOW_BLOCK_RUNS,
    ...state.given.options.flowLimits,
  };
  const outcome = await runFlowScript(
    flow.source,
    flowHost(state, template, limits),
    limits,
    state.given.options.signal,
    state.given.options.flowOutsideBound !== true,
  );
  if (outcome.ok) return;
  if (outcome.aborted || state.given.options.signal?.aborted === true) state.outcome.aborted = true;
  else state.outcome.flowError ??= outcome.message;
}

function flowHost(state: RunState, template: Template, limits: FlowRunLimits): FlowHost {
  const ids = template.http.map((block) => block.id);
  let runs = 0;
  return {
    http: async (refs) => {
      const blocks = refs.length > 0 ? refs : ids.map((_, index) => String(index + 1));
      let matched = false;
      for (const ref of blocks) {
        const index = flowBlockIndex(ref, ids);
        const block = index === undefined ? undefined : template.http[index];
        if (block === undefined) {
          // nuclei reports the bad reference and lets the flow go on with a false result.
          state.outcome.flowError ??= `http(${JSON.stringify(ref)}) names no request block; the template has ${ids.length}`;
          return matched;
        }
        if (stopped(state)) return false;
        if (++runs > limits.blockRuns) {
          throw new FlowHostError(
            `the flow ran more than ${limits.blockRuns} request blocks (an endless loop?) and was stopped`,
          );
        }
        if ((await runBlock(state, block)).flowValue) matched = true;
      }
      return matched;
    },
    set: (name, value) => {
      state.shared.context.set(name, value);
    },
    get: (name) => templateValue(state, name),
    names: () => [...templateNames(state)],
    log: (message) => state.given.options.onFlowLog?.(message),
  };
}

function stopped(state: RunState): boolean {
  if (state.given.options.signal?.aborted === true) state.outcome.aborted = true;
  return state.outcome.aborted;
}

/**
 * nuclei's template context: `variables:`, constants and `-var` values, then what the flow's blocks
 * extracted and shared and what `set()` gave, the later winning.
 */
function templateValue(state: RunState, name: string): FlowValue | undefined {
  for (const layer of [
    state.shared.context,
    state.given.optionValues,
    state.given.constants,
    state.given.variables.fixed,
  ]) {
    const value = layer.get(name);
    if (value !== undefined) return value;
  }
  if (!state.given.variables.lazy.some((variable) => variable.name === name)) return undefined;
  return lazyVariables(state).get(name);
}

function templateNames(state: RunState): Set<string> {
  return new Set([
    ...state.given.variables.fixed.keys(),
    ...state.given.variables.lazy.map((variable) => variable.name),
    ...state.given.constants.keys(),
    ...state.given.optionValues.keys(),
    ...state.shared.context.keys(),
  ]);
}

/** `variables:` that need response values, evaluated with what the flow has so far. */
function lazyVariables(state: RunState): ReadonlyMap<string, Value> {
  return requestScope({
    variables: state.given.variables,
    dynamic: new Map(),
    context: state.shared.context,
    target: new Map(
      state.given.target === undefined ? [] : Object.entries(targetVariables(state.given.target)),
    ),
    options: state.given.optionValues,
    constants: state.given.constants,
  });
}

/** `http(1) && http(2)`: each call runs its block once and is true as nuclei's flow defines it. */
async function evaluateChain(
  state: RunState,
  template: Template,
  expression: FlowExpression,
): Promise<boolean> {
  if (stopped(state)) return false;
  switch (expression.kind) {
    case 'http': {
      const block = template.http[expression.block];
      if (block === undefined) return false;
      return (await runBlock(state, block)).flowValue;
    }
    case 'and':
      return (
        (await evaluateChain(state, template, expression.left)) &&
        (await evaluateChain(state, template, expression.right))
      );
    case 'or':
      return (
        (await evaluateChain(state, template, expression.left)) ||
        (await evaluateChain(state, template, expression.right))
      );
  }
}
