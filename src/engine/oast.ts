/**
 * Out-of-band testing in a run, as nuclei does it: each request that writes `{{interactsh-url}}`
 * gets a callback name of its own; when the block's operators read the interaction
 * (`interactsh_protocol`, `interactsh_request`, `interactsh_response`, `interactsh_ip`), its
 * response is evaluated once per interaction that arrives for that name, with the interaction's
 * values, instead of on its own.
 */
import type { EventInteraction } from '../event/index.js';
import type { Interaction } from '../oast/index.js';
import { type HttpBlock, writesOastName } from '../template/index.js';
import type { Value } from './scope.js';

export interface OastUse {
  /** The block's requests write a callback name. */
  readonly writesName: boolean;
  /** The block's operators read the interaction: its responses wait for one. */
  readonly readsInteraction: boolean;
}

const PARTS = /interactsh_(protocol|request|response|ip)/i;
const uses = new WeakMap<HttpBlock, OastUse>();

export function oastUse(block: HttpBlock): OastUse {
  let use = uses.get(block);
  if (use === undefined) {
    const writesName = writesOastName(block);
    use = { writesName, readsInteraction: writesName && PARTS.test(block.usageText) };
    uses.set(block, use);
  }
  return use;
}

/** Whether a request of `template` writes a callback name: its runs need an interactsh server. */
export function usesOast(
  template: { readonly http: readonly HttpBlock[] } | { readonly writesOastName: boolean },
): boolean {
  if ('writesOastName' in template) return template.writesOastName;
  return template.http.some((block) => oastUse(block).writesName);
}

/** The variable a request's callback name is given under. */
export const OAST_NAME_VARIABLE = 'interactsh-url';

/** What operators read of an interaction. */
export function interactionValues(interaction: Interaction): ReadonlyMap<string, Value> {
  return new Map<string, Value>([
    ['interactsh_protocol', interaction.protocol],
    ['interactsh_request', interaction['raw-request']],
    ['interactsh_response', interaction['raw-response']],
    ['interactsh_ip', interaction['remote-address']],
  ]);
}

/** The interaction as the event's `interaction` field. */
export function eventInteraction(interaction: Interaction): EventInteraction {
  return {
    protocol: interaction.protocol,
    'unique-id': interaction['unique-id'],
    'full-id': interaction['full-id'],
    ...(interaction['q-type'] ? { 'q-type': interaction['q-type'] } : {}),
    ...(interaction['raw-request'] ? { 'raw-request': interaction['raw-request'] } : {}),
    ...(interaction['raw-response'] ? { 'raw-response': interaction['raw-response'] } : {}),
    ...(interaction['smtp-from'] ? { 'smtp-from': interaction['smtp-from'] } : {}),
    'remote-address': interaction['remote-address'],
    timestamp: interaction.timestamp,
  };
}
