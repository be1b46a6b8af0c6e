/** A position in a source file: 1-based line and column, 0-based offset. */
export interface Position {
  readonly line: number;
  readonly col: number;
  readonly offset: number;
}

/**
 * A YAML or JSON document reduced to what configuration files need: maps, sequences and scalars,
 * each with its position. Scalars keep their source text (`0123` stays "0123", `true` stays "true"),
 * because every string field of a secret file or template takes the text as written.
 */
export type SourceNode = ScalarNode | NullNode | MapNode | SeqNode;

export interface ScalarNode {
  readonly kind: 'scalar';
  readonly text: string;
  /** `plain` scalars are the ones YAML would have turned into numbers or booleans. */
  readonly style: 'plain' | 'quoted' | 'block';
  readonly pos: Position;
}

/** An explicit or implicit null (`~`, `null`, an empty value). */
export interface NullNode {
  readonly kind: 'null';
  readonly pos: Position;
}

export interface MapEntry {
  readonly key: ScalarNode;
  readonly value: SourceNode;
}

export interface MapNode {
  readonly kind: 'map';
  readonly entries: readonly MapEntry[];
  readonly pos: Position;
}

export interface SeqNode {
  readonly kind: 'seq';
  readonly items: readonly SourceNode[];
  readonly pos: Position;
}

export function describeNode(node: SourceNode): string {
  switch (node.kind) {
    case 'scalar':
      return 'a scalar';
    case 'null':
      return 'nothing (null)';
    case 'map':
      return 'a mapping';
    case 'seq':
      return 'a list';
  }
}
