import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CompiledExpression, compileExpression } from '../dsl/index.js';
import { selectTemplates } from './library.js';
import { NO_FILTER, type TemplateFilter } from './select.js';

let dir: string;
let library: string;
let checkedCacheFile: string;

const template = (id: string, extra = '') =>
  `id: ${id}\ninfo:\n  name: ${id} name\n  author: a\n  severity: high\n  tags: t-${id}\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/${id}"]\n${extra}    matchers:\n      - type: status\n        status: [200]\n`;

/** A warning ("method" has no effect on raw requests) on line 8. */
const rawWithMethod = (id: string) =>
  `id: ${id}\ninfo:\n  name: ${id} name\n  author: a\n  severity: low\nhttp:\n  - raw:\n      - "GET / HTTP/1.1\\r\\nHost: {{Hostname}}\\r\\n\\r\\n"\n    method: POST\n    matchers:\n      - type: status\n        status: [200]\n`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-checked-cache-'));
  library = join(dir, 'library');
  checkedCacheFile = join(dir, 'cache', 'checked.json');
  await mkdir(join(library, 'helpers'), { recursive: true });
  await writeFile(join(library, 'a.yaml'), template('a'));
  await writeFile(join(library, 'b.yaml'), template('b'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function select(filter: TemplateFilter = NO_FILTER) {
  return selectTemplates([library], { filter, checkedCacheFile });
}

async function names(filter: TemplateFilter = NO_FILTER): Promise<string[]> {
  const { results } = await select(filter);
  return results.map((r) => (r.status === 'ok' ? r.template.info.name : `${r.status}:${r.file}`));
}

async function entries(): Promise<Record<string, { id: string; info: { name: string } }>> {
  return JSON.parse(await readFile(checkedCacheFile, 'utf8')).entries;
}

async function rename(from: string, to: string): Promise<void> {
  const cache = JSON.parse(await readFile(checkedCacheFile, 'utf8'));
  for (const entry of Object.values(cache.entries) as { info: { name: string } }[])
    if (entry.info.name === from) entry.info.name = to;
  await writeFile(checkedCacheFile, JSON.stringify(cache));
}

describe('the cache of templates that compiled', () => {
  it('takes a template whose text it remembers without compiling it, and compiles it in full when it runs', async () => {
    expect(await names()).toEqual(['a name', 'b name']);
    expect(
      Object.values(await entries())
        .map((e) => e.id)
        .sort(),
    ).toEqual(['a', 'b']);
    await rename('a name', 'remembered');
    const { results } = await select();
    expect(results.map((r) => (r.status === 'ok' ? r.template.info.name : r.status))).toEqual([
      'remembered',
      'b name',
    ]);
    const first = results[0];
    if (first?.status !== 'ok') throw new Error('expected a template');
    expect(first.template.compile().info.name).toBe('a name');
  });

  it('compiles a file again once its text changed', async () => {
    expect(await names()).toEqual(['a name', 'b name']);
    await rename('b name', 'stale');
    await writeFile(join(library, 'b.yaml'), template('b2'));
    expect(await names()).toEqual(['a name', 'b2 name']);
  });

  it('judges the filters by what it remembers of a template', async () => {
    await names();
    const cache = JSON.parse(await readFile(checkedCacheFile, 'utf8'));
    for (const entry of Object.values(cache.entries) as { id: string; info: { tags: string[] } }[])
      if (entry.id === 'b') entry.info.tags = ['remembered-tag'];
    await writeFile(checkedCacheFile, JSON.stringify(cache));
    expect(await names({ ...NO_FILTER, tags: ['remembered-tag'] })).toEqual(['b name']);
    expect(await names({ ...NO_FILTER, tags: ['t-b'] })).toEqual([]);
  });

  it('compiles every template when a -tc condition reads the compiled form', async () => {
    await names();
    await rename('a name', 'remembered');
    const conditions = [compileExpression('severity == "high"') as CompiledExpression];
    expect(await names({ ...NO_FILTER, conditions })).toEqual(['a name', 'b name']);
  });

  it('keeps one entry for the same text in two places, giving each its own file in its warnings', async () => {
    await writeFile(join(library, 'a.yaml'), rawWithMethod('same'));
    await rm(join(library, 'b.yaml'));
    const copy = join(dir, 'copy');
    await mkdir(copy);
    await writeFile(join(copy, 'a.yaml'), rawWithMethod('same'));
    const warningsIn = async (folder: string) => {
      const { results } = await selectTemplates([folder], { filter: NO_FILTER, checkedCacheFile });
      return results.flatMap((r) => r.diagnostics.map((d) => `${d.file}:${d.line}: ${d.severity}`));
    };
    expect(await warningsIn(library)).toEqual([`${join(library, 'a.yaml')}:9: warning`]);
    expect(await warningsIn(copy)).toEqual([`${join(copy, 'a.yaml')}:9: warning`]);
    expect(Object.keys(await entries())).toHaveLength(1);
    await rename('same name', 'remembered');
    expect(await warningsIn(copy)).toEqual([`${join(copy, 'a.yaml')}:9: warning`]);
    expect(await names()).toEqual(['remembered']);
  });

  it('does not remember a template with errors, nor one compiled from a payload file', async () => {
    await writeFile(join(library, 'helpers', 'words.txt'), 'one\ntwo\n');
    const payloads = '    payloads:\n      word: helpers/words.txt\n';
    await writeFile(join(library, 'b.yaml'), template('b', payloads).replace('/b"]', '/{{word}}"]'));
    await writeFile(join(library, 'c.yaml'), 'id: c\ninfo: [broken\n');
    const { results } = await select();
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'error']);
    expect(
      Object.values(await entries())
        .map((e) => e.id)
        .sort(),
    ).toEqual(['a']);
  });

  it('ignores a cache file it cannot read as one and writes it anew', async () => {
    await mkdir(join(dir, 'cache'));
    for (const corrupt of [
      '{"version": 1, "entries": {',
      '[]',
      JSON.stringify({ version: 1, entries: { key: { id: 7 } } }),
      JSON.stringify({ version: 99, entries: {} }),
    ]) {
      await writeFile(checkedCacheFile, corrupt);
      expect(await names()).toEqual(['a name', 'b name']);
      expect(
        Object.values(await entries())
          .map((e) => e.id)
          .sort(),
      ).toEqual(['a', 'b']);
    }
  });
});
