/**
 * JSON as nuclei writes it, so that json extractor results read the same as nuclei's. Text
 * conversions of values are the expression language's (`toText`), one mapping for the project.
 */
import type { DslValue } from '../dsl/index.js';

/** A value in the variables map: the expression language's values. */
export type Value = DslValue;

/**
 * JSON as Go's `encoding/json` (and sonic's std config, which nuclei uses) writes it: object keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped. Numbers already agree with JavaScript's output.
 */
export function goJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => sortKeys(item)) ?? 'null';
  return text.replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function sortKeys(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(item).sort()) {
    Object.defineProperty(sorted, key, {
      value: (item as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}
