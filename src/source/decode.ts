import type { Diagnostics, Path } from './diagnostic.js';
import {
  describeNode,
  type MapEntry,
  type MapNode,
  type ScalarNode,
  type SeqNode,
  type SourceNode,
} from './node.js';
import { didYouMean } from './suggest.js';

/**
 * Small typed readers over a {@link SourceNode} tree that report problems with their position and
 * field path instead of throwing, so one pass collects every error of a file.
 *
 * Written by hand rather than with a schema library because what matters here is the error
 * report (file:line:col of the exact key or value, a "did you mean" for unknown keys, source-text
 * scalars), which schema libraries only give after mapping their paths back to a positioned tree.
 */
export class Decoder {
  constructor(readonly diagnostics: Diagnostics) {}

  error(node: SourceNode, path: Path, message: string): void {
    this.diagnostics.error(node.pos, path, message);
  }

  warning(node: SourceNode, path: Path, message: string): void {
    this.diagnostics.warning(node.pos, path, message);
  }

  map(node: SourceNode, path: Path, what = 'a mapping of fields'): MapNode | undefined {
    if (node.kind === 'map') return node;
    this.error(node, path, `expected ${what}, found ${describeNode(node)}`);
    return undefined;
  }

  /**
   * The entries of a mapping whose keys are known; every other key is reported as an error with the
   * closest known key as a suggestion (a typo in a security configuration must not pass silently).
   */
  fields<K extends string>(map: MapNode, path: Path, known: readonly K[]): Partial<Record<K, MapEntry>> {
    const out: Partial<Record<K, MapEntry>> = {};
    for (const entry of map.entries) {
      const name = entry.key.text;
      if ((known as readonly string[]).includes(name)) {
        out[name as K] = entry;
      } else {
        const expected = known.map((k) => `"${k}"`).join(', ');
        this.diagnostics.error(
          entry.key.pos,
          [...path, name],
          `unknown key "${name}"${didYouMean(name, known)}; expected one of ${expected}`,
        );
      }
    }
    return out;
  }

  scalar(node: SourceNode, path: Path, what = 'a text value'): ScalarNode | undefined {
    if (node.kind === 'scalar') return node;
    this.error(node, path, `expected ${what}, found ${describeNode(node)}`);
    return undefined;
  }

  /** A required, non-empty string (whitespace-only counts as empty). */
  text(node: SourceNode, path: Path, what = 'a text value'): string | undefined {
    const scalar = this.scalar(node, path, what);
    if (scalar === undefined) return undefined;
    if (scalar.text.trim() === '') {
      this.error(node, path, `must not be empty; give ${what}`);
      return undefined;
    }
    return scalar.text;
  }

  list(node: SourceNode, path: Path, what = 'a list'): SeqNode | undefined {
    if (node.kind === 'seq') return node;
    this.error(node, path, `expected ${what}, found ${describeNode(node)}`);
    return undefined;
  }

  /** A list with at least one item. */
  nonEmptyList(node: SourceNode, path: Path, what = 'a list'): SeqNode | undefined {
    const seq = this.list(node, path, what);
    if (seq === undefined) return undefined;
    if (seq.items.length === 0) {
      this.error(node, path, `must not be empty; give ${what} with at least one item`);
      return undefined;
    }
    return seq;
  }

  /** YAML 1.2 core booleans (`true`, `True`, `TRUE`, `false`, …). */
  bool(node: SourceNode, path: Path): boolean | undefined {
    const scalar = this.scalar(node, path, 'true or false');
    if (scalar === undefined) return undefined;
    const lower = scalar.text.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    this.error(node, path, `expected true or false, found "${scalar.text}"`);
    return undefined;
  }

  integer(node: SourceNode, path: Path, range: { min?: number; max?: number } = {}): number | undefined {
    const scalar = this.scalar(node, path, 'a whole number');
    if (scalar === undefined) return undefined;
    if (!/^[+-]?\d+$/.test(scalar.text.trim())) {
      this.error(node, path, `expected a whole number, found "${scalar.text}"`);
      return undefined;
    }
    const value = Number.parseInt(scalar.text, 10);
    const { min, max } = range;
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      const bounds =
        min !== undefined && max !== undefined
          ? `between ${min} and ${max}`
          : min !== undefined
            ? `at least ${min}`
            : `at most ${max}`;
      this.error(node, path, `must be ${bounds}, found ${value}`);
      return undefined;
    }
    return value;
  }
}
