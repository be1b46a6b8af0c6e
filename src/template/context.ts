import {
  Decoder,
  type Diagnostics,
  didYouMean,
  formatPath,
  type MapEntry,
  type MapNode,
  type Path,
  type Position,
  type ScalarNode,
  type SourceNode,
} from '../source/index.js';
import type { KeyTable } from './keys.js';
import { oastMarkerAt, oastMarkerOffset, positionInScalar } from './placeholders.js';

/** A feature nuclei has and keyhole does not run yet, with where the template uses it. */
export interface UnsupportedFeature {
  readonly feature: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly path: string;
}

/** What the decoding functions share while reading one template. */
export class ParseContext {
  readonly decode: Decoder;
  readonly unsupported: UnsupportedFeature[] = [];

  constructor(
    readonly file: string,
    readonly text: string,
    readonly diagnostics: Diagnostics,
  ) {
    this.decode = new Decoder(diagnostics);
  }

  error(pos: Position, path: Path, message: string): void {
    this.diagnostics.error(pos, path, message);
  }

  warning(pos: Position, path: Path, message: string): void {
    this.diagnostics.warning(pos, path, message);
  }

  markUnsupported(feature: string, pos: Position, path: Path): void {
    const where = formatPath(path);
    if (this.unsupported.some((u) => u.feature === feature)) return;
    this.unsupported.push({ feature, file: this.file, line: pos.line, col: pos.col, path: where });
  }

  /**
   * The entries of `map` by key, checked against a key table: unknown keys are errors with a
   * suggestion, keys nuclei has but keyhole does not run are unsupported features.
   */
  fields<T extends KeyTable>(
    map: MapNode,
    path: Path,
    table: T,
  ): Partial<Record<keyof T & string, MapEntry>> {
    const out: Partial<Record<string, MapEntry>> = {};
    const known = Object.keys(table);
    const unknown: MapEntry[] = [];
    for (const entry of map.entries) {
      const spec = table[entry.key.text];
      if (spec === undefined) {
        unknown.push(entry);
        continue;
      }
      if (spec.status === 'unsupported') {
        this.markUnsupported(spec.feature ?? entry.key.text, entry.key.pos, [...path, entry.key.text]);
        continue;
      }
      out[entry.key.text] = entry;
    }
    for (const entry of unknown) {
      const name = entry.key.text;
      const suggestion = didYouMean(name, known);
      const hint =
        suggestion !== ''
          ? suggestion
          : `; known keys here: ${known.filter((k) => table[k]?.status !== 'unsupported').join(', ')}`;
      this.error(entry.key.pos, [...path, name], `unknown key "${name}"${hint}`);
    }
    return out as Partial<Record<keyof T & string, MapEntry>>;
  }

  /** A scalar's text, or undefined (with an error) for lists, maps and nulls. */
  string(node: SourceNode, path: Path, what = 'a text value'): string | undefined {
    return this.decode.scalar(node, path, what)?.text;
  }

  /** Reports `{{interactsh-url}}` and similar markers as unsupported; returns whether any was found. */
  checkOastMarkers(node: ScalarNode, path: Path): boolean {
    const offset = oastMarkerOffset(node.text);
    if (offset < 0) return false;
    const marker = oastMarkerAt(node.text, offset).replace(/\s+/g, '');
    this.markUnsupported(`out-of-band testing (${marker})`, positionInScalar(node, offset, this.text), path);
    return true;
  }

  /** The file position of `offset` inside the value of `node`. */
  positionIn(node: ScalarNode, offset: number): Position {
    return positionInScalar(node, offset, this.text);
  }
}
