import { compileTemplateString, DslSyntaxError, type TemplateString } from '../dsl/index.js';
import type { HttpBlock, PayloadSet, Payloads } from './model.js';
import type { ParsedTemplate } from './parse.js';
import { combinationCount } from './payloads.js';

/** A `-var name=FILE` whose FILE exists: the file's lines, one value each. */
export interface VariableFile {
  readonly name: string;
  readonly path: string;
  readonly values: readonly string[];
}

/**
 * `-var name=FILE` where FILE exists makes the lines of FILE a payload list of each block that uses
 * `name` (nuclei's http `Compile`): it replaces a payload of that name, and a block with more than
 * one list and no attack type of its own runs them as nuclei's generator does.
 */
export function withVariablePayloads(
  template: ParsedTemplate,
  files: readonly VariableFile[],
): ParsedTemplate | VariablePayloadError {
  if (files.length === 0) return template;
  let changed = false;
  const http: HttpBlock[] = [];
  for (const block of template.http) {
    const used = files.filter((file) => block.usageText.includes(file.name));
    if (used.length === 0) {
      http.push(block);
      continue;
    }
    changed = true;
    const replaced = withPayloadSets(block, used);
    if (replaced.payloads?.attack === 'batteringram' && replaced.payloads.sets.length > 1) {
      return batteringramError(template.file, replaced, used);
    }
    http.push(replaced);
  }
  if (!changed) return template;
  return { ...template, http, requestCount: http.reduce((sum, b) => sum + b.requestCount, 0) };
}

export class VariablePayloadError extends Error {
  override readonly name = 'VariablePayloadError';
}

function batteringramError(
  file: string,
  block: HttpBlock,
  used: readonly VariableFile[],
): VariablePayloadError {
  const names = (block.payloads?.sets ?? []).map((set) => set.name).join(', ');
  const where = `${file}:${block.pos.line}:${block.pos.col}`;
  return new VariablePayloadError(
    `-var ${used.map((file) => file.name).join(', ')}: ${where} would run two payloads (${names}) with batteringram, which takes one; give the block "attack: pitchfork" or "attack: clusterbomb"`,
  );
}

function withPayloadSets(block: HttpBlock, files: readonly VariableFile[]): HttpBlock {
  const names = new Set(files.map((file) => file.name));
  const kept = (block.payloads?.sets ?? []).filter((set) => !names.has(set.name));
  const added = files.map(
    (file): PayloadSet => ({
      name: file.name,
      values: file.values.map(compiledValue),
      source: { kind: 'file', path: file.path },
      pos: block.pos,
    }),
  );
  const payloads: Payloads = { attack: block.payloads?.attack ?? 'batteringram', sets: [...kept, ...added] };
  const perCombination =
    block.requests.kind === 'raw' ? block.requests.raw.length : block.requests.paths.length;
  return { ...block, payloads, requestCount: combinationCount(payloads) * perCombination };
}

/** A value of the file, with its `{{…}}` rendered per request as a template's payload values are. */
function compiledValue(value: string): TemplateString {
  const compiled = compileTemplateString(value);
  return compiled instanceof DslSyntaxError ? literalText(value) : compiled;
}

/** A value whose `{{…}}` is not an expression: sent as written. */
function literalText(text: string): TemplateString {
  const rendered = { text, unresolved: [], details: [] };
  return { text, variables: [], hasPlaceholders: false, render: () => rendered };
}
