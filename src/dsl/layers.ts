/**
 * Variable scopes stacked without copying: a lookup asks the top layer first and goes down until a
 * layer has the name. The engine evaluates every response against template variables, earlier
 * responses, payload values and the response's own values; copying them into one map per response
 * cost more than evaluating the matchers.
 */
import type { DslValue, VariableScope } from './value.js';

/**
 * A read-only view of layers, lowest first: a name in a later layer hides the same name below.
 * Layers are read at lookup time, so later changes to a layer show through. Lookups never copy;
 * iterating (rare: a case-insensitive key-value extractor, diagnostics) merges the layers.
 */
export class LayeredScope implements VariableScope {
  /** `layers` becomes the scope's own (`addTop` adds to it): pass an array made for it. */
  constructor(private readonly layers: VariableScope[]) {}

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

  get size(): number {
    return this.merged().size;
  }

  forEach(callback: (value: DslValue, key: string, map: VariableScope) => void, thisArg?: unknown): void {
    for (const [key, value] of this.merged()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[string, DslValue]> {
    return this.merged().entries();
  }

  keys(): MapIterator<string> {
    return this.merged().keys();
  }

  values(): MapIterator<DslValue> {
    return this.merged().values();
  }

  [Symbol.iterator](): MapIterator<[string, DslValue]> {
    return this.entries();
  }

  /** The names in the order a map filled layer after layer would hold them, with the winning values. */
  private merged(): Map<string, DslValue> {
    const out = new Map<string, DslValue>();
    for (const layer of this.layers) for (const [name, value] of layer) out.set(name, value);
    return out;
  }
}
