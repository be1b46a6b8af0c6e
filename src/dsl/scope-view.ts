import type { DslValue, VariableScope } from './value.js';

/**
 * A read-only variable scope computed on demand (layers, response history, a response's values):
 * subclasses answer lookups directly and build the whole map only when it is iterated, which only
 * a case-insensitive key-value extractor and diagnostics do.
 */
export abstract class ScopeView implements VariableScope {
  abstract get(name: string): DslValue | undefined;
  abstract has(name: string): boolean;
  /** Every name and its value, in the order a map filled the eager way would hold them. */
  protected abstract merged(): Map<string, DslValue>;

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
}
