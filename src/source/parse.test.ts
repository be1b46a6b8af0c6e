import { describe, expect, it } from 'vitest';
import { Decoder } from './decode.js';
import { formatDiagnostic } from './diagnostic.js';
import type { MapNode, SourceNode } from './node.js';
import { formatOf, parseSource } from './parse.js';

function entryValue(root: SourceNode | undefined, key: string): SourceNode | undefined {
  return (root as MapNode).entries.find((e) => e.key.text === key)?.value;
}

describe('parseSource (YAML)', () => {
  it('keeps every scalar as its source text', () => {
    const { root } = parseSource('s.yaml', 'a: 0123\nb: true\nc: 1e3\nd: "x y"\ne: 0x1F\n', 'yaml');
    const texts = ['a', 'b', 'c', 'd', 'e'].map((k) => {
      const v = entryValue(root, k);
      return v?.kind === 'scalar' ? v.text : undefined;
    });
    expect(texts).toEqual(['0123', 'true', '1e3', 'x y', '0x1F']);
  });

  it('reads ~, null and empty values as null nodes', () => {
    const { root } = parseSource('s.yaml', 'a: ~\nb: null\nc:\nd: "null"\n', 'yaml');
    expect(['a', 'b', 'c', 'd'].map((k) => entryValue(root, k)?.kind)).toEqual([
      'null',
      'null',
      'null',
      'scalar',
    ]);
  });

  it('gives 1-based line and column positions', () => {
    const { root } = parseSource('s.yaml', 'top:\n  - name: x\n    value: y\n', 'yaml');
    const list = entryValue(root, 'top');
    expect(list?.kind).toBe('seq');
    const item = list?.kind === 'seq' ? (list.items[0] as MapNode) : undefined;
    expect(item?.entries[1]?.key.pos).toMatchObject({ line: 3, col: 5 });
    expect(item?.entries[1]?.value.pos).toMatchObject({ line: 3, col: 12 });
  });

  it('reports a duplicate key with its position', () => {
    const { diagnostics } = parseSource('s.yaml', 'a: 1\nb: 2\na: 3\n', 'yaml');
    expect(diagnostics.items.map(formatDiagnostic)).toEqual([
      's.yaml:3:1: this key appears twice in the same mapping; keep one',
    ]);
  });

  it('reports syntax errors instead of throwing', () => {
    const { root, diagnostics } = parseSource('s.yaml', 'a: [1, 2\nb: }\n', 'yaml');
    expect(root).toBeUndefined();
    expect(diagnostics.hasErrors).toBe(true);
    expect(diagnostics.items[0]?.line).toBeGreaterThan(0);
  });

  it('refuses a document that expands aliases without end', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(
        `${next}: &${next} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    const { diagnostics } = parseSource('bomb.yaml', `${lines.join('\n')}\n`, 'yaml');
    expect(diagnostics.items.some((d) => d.message.includes('alias expansions'))).toBe(true);
  });

  it('rejects several documents in one file', () => {
    const { diagnostics } = parseSource('s.yaml', 'a: 1\n---\nb: 2\n', 'yaml');
    expect(diagnostics.items[0]?.message).toContain('several YAML documents');
  });

  it('returns no root for an empty file', () => {
    const { root, diagnostics } = parseSource('s.yaml', '# only a comment\n', 'yaml');
    expect(root).toBeUndefined();
    expect(diagnostics.items).toEqual([]);
  });
});

describe('parseSource (JSON)', () => {
  it('keeps numbers and booleans as their source text', () => {
    const { root } = parseSource('s.json', '{"a": 0.10, "b": true, "c": null, "d": "x"}', 'json');
    expect(entryValue(root, 'a')).toMatchObject({ kind: 'scalar', text: '0.10' });
    expect(entryValue(root, 'b')).toMatchObject({ kind: 'scalar', text: 'true' });
    expect(entryValue(root, 'c')?.kind).toBe('null');
    expect(entryValue(root, 'd')).toMatchObject({ kind: 'scalar', text: 'x' });
  });

  it('reports a duplicate key with its position', () => {
    const { diagnostics } = parseSource('s.json', '{\n  "a": 1,\n  "a": 2\n}', 'json');
    expect(diagnostics.items.map(formatDiagnostic)).toEqual([
      's.json:3:3: the key "a" appears twice in the same object; keep one',
    ]);
  });

  it('reports a syntax error with line and column', () => {
    const { diagnostics } = parseSource('s.json', '{\n  "a": 1,\n}', 'json');
    expect(diagnostics.items[0]).toMatchObject({ line: 3, col: 1 });
    expect(diagnostics.items[0]?.message).toMatch(/^invalid JSON: /);
  });

  it('rejects comments', () => {
    const { diagnostics } = parseSource('s.json', '{"a": 1 // no\n}', 'json');
    expect(diagnostics.hasErrors).toBe(true);
  });
});

describe('formatOf', () => {
  it('chooses the format by extension, case-insensitively', () => {
    expect([formatOf('a.yaml'), formatOf('a.YML'), formatOf('a.Json'), formatOf('a.txt')]).toEqual([
      'yaml',
      'yaml',
      'json',
      undefined,
    ]);
  });
});

describe('Decoder', () => {
  it('reports unknown keys with the closest known key', () => {
    const parsed = parseSource('s.yaml', 'domain: [a]\ntype: header\n', 'yaml');
    const d = new Decoder(parsed.diagnostics);
    d.fields(parsed.root as MapNode, ['static', 0], ['type', 'domains', 'domains-regex']);
    expect(parsed.diagnostics.items.map(formatDiagnostic)).toEqual([
      's.yaml:1:1: static[0].domain: unknown key "domain" (did you mean "domains"?); expected one of "type", "domains", "domains-regex"',
    ]);
  });

  it('reads integers within bounds and reports the rest', () => {
    const parsed = parseSource('s.yaml', 'a: 5\nb: 5.5\nc: 0\n', 'yaml');
    const d = new Decoder(parsed.diagnostics);
    const root = parsed.root as MapNode;
    const read = (i: number) => d.integer(root.entries[i]?.value as SourceNode, ['x'], { min: 1 });
    expect([read(0), read(1), read(2)]).toEqual([5, undefined, undefined]);
    expect(parsed.diagnostics.items.map((x) => x.message)).toEqual([
      'expected a whole number, found "5.5"',
      'must be at least 1, found 0',
    ]);
  });
});
