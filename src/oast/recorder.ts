import { callbackLabels, type Interaction } from './protocol.js';
import type { Registry } from './registry.js';

/** The ids of one callback: its label and every label before the domain. */
export interface CallbackIds {
  readonly uniqueId: string;
  readonly fullId: string;
}

/**
 * Turns callbacks into interactions for the clients that made their names: a name under the domain
 * (or any text, such as a path) is searched for callback labels of registered correlation ids.
 */
export class Recorder {
  readonly #domain: string;

  constructor(
    private readonly registry: Registry,
    domain: string,
    private readonly onRecord: (interaction: Interaction) => void = () => {},
  ) {
    this.#domain = domain.toLowerCase().replace(/\.$/, '');
  }

  /** Whether `host` is a name under the domain. */
  namesCallback(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return name.endsWith(`.${this.#domain}`);
  }

  /** Whether `name` is the domain or under it. */
  isOwnName(name: string): boolean {
    const lower = name.toLowerCase().replace(/\.$/, '');
    return lower === this.#domain || this.namesCallback(lower);
  }

  /** Records one interaction per registered callback label found in `named`; how many. */
  record(named: string, make: (ids: CallbackIds) => Interaction): number {
    const fullId = this.fullIdOf(named);
    const seen = new Set<string>();
    let recorded = 0;
    for (const { uniqueId, correlationId } of callbackLabels(named)) {
      if (seen.has(uniqueId) || !this.registry.isRegistered(correlationId)) continue;
      seen.add(uniqueId);
      const interaction = make({ uniqueId, fullId: fullId === '' ? uniqueId : fullId });
      if (this.registry.record(correlationId, interaction)) {
        recorded++;
        this.onRecord(interaction);
      }
    }
    return recorded;
  }

  private fullIdOf(named: string): string {
    const name = named.toLowerCase().replace(/\.$/, '');
    return this.namesCallback(name) ? name.slice(0, -(this.#domain.length + 1)) : '';
  }
}
