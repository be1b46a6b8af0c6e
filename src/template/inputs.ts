import type { Position } from '../source/index.js';
import type { TemplateText } from './model.js';
import type { ParsedTemplate } from './parse.js';
import { TARGET_VARIABLE_NAMES } from './target.js';

/** A variable a template's requests read that nothing in the template gives a value. */
export interface ExternalVariable {
  readonly name: string;
  /** Where it is first read. */
  readonly pos: Position;
}

/**
 * The variables a template's requests need from whoever runs it (`-var`, a login entry's
 * `variables:`): read by a request line, path, header, body or `variables:` value, and given by
 * none of the template's own sources (its `variables:`, `constants:`, payloads, extractors, `randstr`, the
 * target's variables). Values shared between blocks (`http_…`), indexed response values (`…_2`)
 * and anything a JavaScript `flow:` may `set` are out of reach of this reading: a template with
 * such a flow needs nothing, as far as it can tell.
 */
export function externalVariables(template: ParsedTemplate): ExternalVariable[] {
  if (template.flow !== undefined && template.flow.expression === undefined) return [];
  const known = new Set<string>([
    ...TARGET_VARIABLE_NAMES,
    ...template.randstrNames,
    ...template.constants.keys(),
    // Each request's callback name, given by the run (out-of-band testing).
    'interactsh-url',
  ]);
  for (const variable of template.variables) known.add(variable.name);
  for (const block of template.http) {
    for (const set of block.payloads?.sets ?? []) known.add(set.name);
    for (const extractor of block.operators.model.extractors)
      if (extractor.name !== undefined) known.add(extractor.name);
  }
  const found = new Map<string, Position>();
  for (const text of readTexts(template)) {
    for (const name of text.template.variables) {
      if (known.has(name) || found.has(name) || /^http_|_\d+$/.test(name)) continue;
      found.set(name, text.pos);
    }
  }
  return [...found].map(([name, pos]) => ({ name, pos }));
}

function* readTexts(template: ParsedTemplate): Generator<TemplateText> {
  yield* template.variables;
  for (const block of template.http) {
    yield* block.requests.kind === 'raw' ? block.requests.raw : block.requests.paths;
    yield* block.headers;
    if (block.body !== undefined) yield block.body;
  }
}
