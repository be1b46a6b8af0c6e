/**
 * Variable scopes stacked without copying: a lookup asks the top layer first and goes down until a
 * layer has the name. The engine evaluates every response against template variables, earlier
 * responses, payload values and the response's own values; copying them into one map per response
 * cost more than evaluating the matchers.
 */
import { ScopeView } from './scope-view.js';
import type { DslValue, VariableScope } from './value.js';

/**
 * A read-only view of layers, lowest first: a name in a later layer hides the same name below.
 * Layers are read at lookup time, so later changes to a layer show through. Lookups never copy;
 * iterating (rare: a case-insensitive key-value extractor, diagnostics) merges the layers.
 */
export class LayeredScope extends ScopeView {
  /** `layers` becomes the scope's own (`addTop` adds to it): pass an array made for it. */
  constructor(private readonly layers: VariableScope[]) {
    super();
  }

  /** Puts `layer` on top of the others. */
  addTop(layer: VariableScope): void {
    this.layers.push(layer);
  }

  get(name: string): DslValue | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const value = (this.layers[i] as VariableScope).get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  has(name: string): boolean {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      if ((this.layers[i] as VariableScope).has(name)) return true;
    }
    return false;
  }

  /** The names in the order a map filled layer after layer would hold them, with the winning values. */
  protected merged(): Map<string, DslValue> {
    const out = new Map<string, DslValue>();
    for (const layer of this.layers) for (const [name, value] of layer) out.set(name, value);
    return out;
  }
}
