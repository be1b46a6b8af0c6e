/**
 * What the engine renders per block, on top of the parsed template's compiled forms: `path:` entries
 * with a port override (`{{BaseURL}}:8080/x`) are compiled once without the `:8080`, and payload
 * combinations are read as maps.
 */
import { compileTemplateString, DslSyntaxError, type TemplateString } from '../dsl/index.js';
import type { CompiledOperators } from '../operators/index.js';
import {
  type AttackType,
  type HttpBlock,
  pathHasTrailingSlash,
  payloadCombinations,
  portOverride,
  type Template,
} from '../template/index.js';

/**
 * A `path:` entry: `{{BaseURL}}:8080/x` sends to port 8080 (the port taken out of the text), and
 * `{{BaseURL}}/x` builds the variables without the target path's trailing slash, as nuclei does.
 */
export interface CompiledPath {
  readonly text: TemplateString;
  readonly port?: string;
  readonly trimTrailingSlash: boolean;
}

export interface CompiledHeader {
  readonly name: string;
  readonly value: TemplateString;
}

export interface CompiledBlock {
  /** Raw requests (for `raw:` blocks). */
  readonly raw: readonly TemplateString[];
  /** Paths (for `path:` blocks). */
  readonly paths: readonly CompiledPath[];
  readonly headers: readonly CompiledHeader[];
  readonly body?: TemplateString;
  readonly operators: CompiledOperators;
  /**
   * The operators read earlier responses by request number (`body_1`): only then are responses
   * kept for the requests after them.
   */
  readonly readsHistory: boolean;
}

export interface CompiledVariable {
  readonly name: string;
  readonly value: TemplateString;
}

/** A path without its port override that no longer compiles (cannot happen for parsed templates). */
export class TemplateCompileError extends Error {
  override readonly name = 'TemplateCompileError';
}

const blocks = new WeakMap<HttpBlock, CompiledBlock>();

export function compiledBlock(block: HttpBlock): CompiledBlock {
  let compiled = blocks.get(block);
  if (compiled === undefined) {
    compiled = compileBlock(block);
    blocks.set(block, compiled);
  }
  return compiled;
}

export function compiledVariables(template: Template): readonly CompiledVariable[] {
  return template.variables.map((v) => ({ name: v.name, value: v.template }));
}

function compileBlock(block: HttpBlock): CompiledBlock {
  const raw = block.requests.kind === 'raw' ? block.requests.raw.map((r) => r.template) : [];
  const paths =
    block.requests.kind === 'path' ? block.requests.paths.map((p) => compilePath(p.template)) : [];
  return {
    raw,
    paths,
    headers: block.headers.map((h) => ({ name: h.name, value: h.template })),
    ...(block.body === undefined ? {} : { body: block.body.template }),
    operators: block.operators,
    readsHistory: readsIndexedNames(block.operators.names),
  };
}

function readsIndexedNames(names: ReadonlySet<string> | 'any'): boolean {
  return names === 'any' || [...names].some((name) => /_[1-9]\d*$/.test(name));
}

/**
 * The block's payload combinations in nuclei's order; one empty combination for a block without
 * payloads.
 */
export function payloadTexts(
  block: HttpBlock,
  attack: AttackType | undefined,
): Iterable<ReadonlyMap<string, TemplateString>> {
  // Most blocks have no payloads: one empty combination, shared, instead of a generator per run.
  if (block.payloads === undefined) return NO_PAYLOADS;
  return combinationTexts(attack === undefined ? block.payloads : { ...block.payloads, attack });
}

const NO_PAYLOADS: readonly ReadonlyMap<string, TemplateString>[] = [new Map()];

function* combinationTexts(
  payloads: NonNullable<HttpBlock['payloads']>,
): Generator<ReadonlyMap<string, TemplateString>> {
  for (const combination of payloadCombinations(payloads)) yield new Map(Object.entries(combination));
}

function compilePath(written: TemplateString): CompiledPath {
  const override = portOverride(written.text);
  const trimTrailingSlash = pathHasTrailingSlash(written.text);
  if (override === undefined) return { text: written, trimTrailingSlash };
  const compiled = compileTemplateString(override.path);
  if (compiled instanceof DslSyntaxError) throw new TemplateCompileError(compiled.message);
  return { text: compiled, port: override.port, trimTrailingSlash };
}
