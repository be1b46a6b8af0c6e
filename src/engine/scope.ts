/**
 * The variables a request is rendered with, layered as nuclei layers them (`Make` in
 * build_request.go), lowest first: template `variables:`, values extracted earlier in the block,
 * values shared by earlier blocks (the template context), target variables, `-var` values (and a
 * login's variables), payload values, then constants (`constants:` and the per-run `randstr`), which win
 * over everything.
 *
 * `variables:` entries are evaluated once per run when they only need what is known before any
 * request (so `{{rand_base(5)}}` is one value for the whole run, as nuclei evaluates such variables
 * once); entries that need values only a response provides are evaluated for each request.
 */
import {
  type DslValue,
  LayeredScope,
  type TemplateString,
  type UnresolvedPlaceholder,
} from '../dsl/index.js';
import type { CompiledVariable } from './compiled.js';

export type Value = DslValue;
export type Values = ReadonlyMap<string, Value>;

export interface TemplateVariables {
  /** Resolved once for the run. */
  readonly fixed: Values;
  /** Still holding placeholders that need response values: evaluated per request, in order. */
  readonly lazy: readonly CompiledVariable[];
}

const NO_VARIABLES: TemplateVariables = { fixed: new Map(), lazy: [] };

/**
 * Evaluates `variables:` in order against what is known for the whole run (`known`: target
 * variables, `-var` values, constants). A name given from outside keeps the outside value.
 */
export function evaluateTemplateVariables(
  variables: readonly CompiledVariable[],
  known: Values,
): TemplateVariables {
  if (variables.length === 0) return NO_VARIABLES;
  const scope = new Map(known);
  const fixed = new Map<string, Value>();
  const lazy: CompiledVariable[] = [];
  for (const variable of variables) {
    if (known.has(variable.name)) continue;
    const rendered = variable.value.render(scope);
    if (rendered.unresolved.length > 0) {
      lazy.push(variable);
      continue;
    }
    fixed.set(variable.name, rendered.text);
    scope.set(variable.name, rendered.text);
  }
  return { fixed, lazy };
}

export interface RequestLayers {
  readonly variables: TemplateVariables;
  /** Values extracted by earlier requests of the block (first value of the latest extraction). */
  readonly dynamic: Values;
  /** Values shared by earlier blocks. */
  readonly context: Values;
  readonly target: Values;
  /** `-var` and login variables. */
  readonly options: Values;
  readonly constants: Values;
}

/** A request's scope: its layers, read where they are, under the values the request adds itself. */
export class RequestScope extends LayeredScope {
  private readonly own: Map<string, Value>;
  /** `variables:` entries that could not be evaluated for this request, by name, with why. */
  readonly unresolvedVariables = new Map<string, readonly UnresolvedPlaceholder[]>();

  /** `layers` is taken over: the request's own values are added on top of it. */
  constructor(layers: Values[]) {
    const own = new Map<string, Value>();
    layers.push(own);
    super(layers);
    this.own = own;
  }

  set(name: string, value: Value): this {
    this.own.set(name, value);
    return this;
  }
}

/**
 * The scope of one request before payload values are added. Layers are not copied (they are fixed
 * for the run, or made for this request), except the template context, which later blocks and
 * responses change: the request sees it as it was when the request was made.
 */
export function requestScope(layers: RequestLayers): RequestScope {
  const under: Values[] = [];
  for (const layer of [
    layers.variables.fixed,
    layers.dynamic,
    layers.context,
    layers.target,
    layers.options,
    layers.constants,
  ]) {
    if (layer.size === 0) continue;
    under.push(layer === layers.context ? new Map(layer) : layer);
  }
  const scope = new RequestScope(under);
  for (const variable of layers.variables.lazy) {
    if (scope.has(variable.name)) continue;
    const rendered = variable.value.render(scope);
    // nuclei keeps a variable it cannot evaluate as its text: a request that reads it then fails
    // the unresolved-placeholder check and is skipped with the reason.
    scope.set(variable.name, rendered.text);
    if (rendered.details.length > 0) scope.unresolvedVariables.set(variable.name, rendered.details);
  }
  return scope;
}

/**
 * Payload values rendered with the request's scope (`{{Hostname}}` or helpers inside a payload
 * value), then laid over it. Returns the rendered values (the event's `meta`) and the placeholders
 * that stayed unresolved in them.
 */
export function addPayloads(
  scope: RequestScope,
  payloads: ReadonlyMap<string, TemplateString>,
  constants: Values,
): { meta: Record<string, string>; unresolved: string[] } {
  const meta: Record<string, string> = {};
  const unresolved: string[] = [];
  for (const [name, value] of payloads) {
    const rendered = value.render(scope);
    meta[name] = rendered.text;
    for (const detail of rendered.details) unresolved.push(detail.placeholder);
  }
  // nuclei lays constants over payload values too.
  for (const [name, value] of Object.entries(meta)) if (!constants.has(name)) scope.set(name, value);
  return { meta, unresolved };
}
