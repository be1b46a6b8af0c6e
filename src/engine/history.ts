/**
 * The values of a block's earlier responses under their indexed names (`body_2`, `status_code_2`), as
 * nuclei records each request for the requests after it. Each response's map is kept as it is and
 * read on lookup: the indexed names are not built unless a template asks for one.
 */
import { ScopeView } from '../dsl/index.js';
import type { Value } from './scope.js';

/** `body_2` → `body` and 2; undefined for a name without a request number. */
function splitIndexed(name: string): { readonly name: string; readonly index: number } | undefined {
  const at = name.lastIndexOf('_');
  if (at <= 0) return undefined;
  const digits = name.slice(at + 1);
  if (!/^[1-9]\d*$/.test(digits)) return undefined;
  return { name: name.slice(0, at), index: Number(digits) };
}

/** A read-only map: the latest values recorded for each request number, under indexed names. */
export class ResponseHistory extends ScopeView {
  private readonly byIndex = new Map<number, ReadonlyMap<string, Value>>();

  /**
   * Records a response of request `index` (from 1). A value of an earlier response of the same
   * request stays visible when the newer response does not have that name.
   */
  record(index: number, values: ReadonlyMap<string, Value>): void {
    const earlier = this.byIndex.get(index);
    if (earlier === undefined || [...earlier.keys()].every((name) => values.has(name))) {
      this.byIndex.set(index, values);
      return;
    }
    const merged = new Map(earlier);
    for (const [name, value] of values) merged.set(name, value);
    this.byIndex.set(index, merged);
  }

  get(name: string): Value | undefined {
    const split = splitIndexed(name);
    return split === undefined ? undefined : this.byIndex.get(split.index)?.get(split.name);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  protected merged(): Map<string, Value> {
    const out = new Map<string, Value>();
    for (const [index, values] of this.byIndex) {
      for (const [name, value] of values) out.set(`${name}_${index}`, value);
    }
    return out;
  }
}

/** One response's values under the indexed names of request `index` only. */
export function indexedValues(index: number, values: ReadonlyMap<string, Value>): ResponseHistory {
  const history = new ResponseHistory();
  history.record(index, values);
  return history;
}
