/**
 * The layout rules docs/architecture.md states, checked on the source: one folder per concept, other
 * folders reached only through their barrel (`index.ts`), and no cycle between folders. Tests,
 * benchmarks and `testing/` helpers may reach into a folder's modules; the shipped code may not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g;

interface Edge {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly path: string;
}

/** Shipped source: no tests, benchmarks (bench/ runs them) or `testing/` helpers. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'testing' || path === join(SRC, 'bench') ? [] : sourceFiles(path);
    const shipped = /\.tsx?$/.test(entry.name) && !/\.(test|bench)\.tsx?$/.test(entry.name);
    return shipped ? [path] : [];
  });
}

/** Imports of shipped code that cross from one folder to another. */
function crossFolderImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, file).split(sep)[0] ?? '';
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const path = match[1] ?? '';
      const target = relative(SRC, normalize(join(dirname(file), path)));
      const to = target.split(sep)[0] ?? '';
      if (to !== from && !to.endsWith('.js'))
        edges.push({ file: relative(SRC, file), from, to, path: target });
    }
  }
  return edges;
}

describe('the folders of src/', () => {
  const edges = crossFolderImports();

  it('reach each other only through their barrels', () => {
    const around = edges.filter((e) => e.path !== join(e.to, 'index.js'));
    expect(around.map((e) => `${e.file} imports ${e.path}`)).toEqual([]);
  });

  it('depend on each other without a cycle', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (folder: string, path: string[]): void => {
      state.set(folder, 'open');
      for (const next of graph.get(folder) ?? []) {
        if (state.get(next) === 'open')
          cycles.push([...path.slice(path.indexOf(next)), folder, next].join(' → '));
        else if (state.get(next) === undefined) visit(next, [...path, folder]);
      }
      state.set(folder, 'done');
    };
    for (const folder of graph.keys()) if (state.get(folder) === undefined) visit(folder, []);
    expect(cycles).toEqual([]);
  });
});
