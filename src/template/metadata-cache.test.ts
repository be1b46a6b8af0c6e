import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selectTemplates } from './library.js';
import { NO_FILTER, type TemplateFilter } from './select.js';

let dir: string;
let library: string;
let cacheFile: string;

const template = (id: string, tags: string) =>
  `id: ${id}\ninfo:\n  name: ${id}\n  author: a\n  severity: high\n  tags: ${tags}\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/${id}"]\n    matchers:\n      - type: status\n        status: [200]\n`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-metadata-cache-'));
  library = join(dir, 'library');
  cacheFile = join(dir, 'cache', 'metadata.json');
  await mkdir(library);
  await writeFile(join(library, 'a.yaml'), template('a', 'alpha'));
  await writeFile(join(library, 'b.yaml'), template('b', 'beta'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const withTags = (...tags: string[]): TemplateFilter => ({ ...NO_FILTER, tags });

async function selectedIds(filter: TemplateFilter): Promise<string[]> {
  const selection = await selectTemplates([library], { filter, cacheFile });
  return selection.results.map((r) => (r.status === 'ok' ? r.template.id : `${r.status}:${r.file}`));
}

describe('the metadata cache of a selection', () => {
  it('judges an unchanged file by the fields it remembers, without reading it again', async () => {
    expect(await selectedIds(withTags('alpha'))).toEqual(['a']);
    const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
    const entry = cache.entries[join(library, 'b.yaml')];
    expect(entry).toMatchObject({ id: 'b', tags: ['beta'], severity: 'high', protocol: 'http' });
    entry.tags = ['remembered'];
    await writeFile(cacheFile, JSON.stringify(cache));
    expect(await selectedIds(withTags('remembered'))).toEqual(['b']);
    expect(await selectedIds(withTags('beta'))).toEqual([]);
  });

  it('reads a file again once it changed, and remembers what it holds now', async () => {
    expect(await selectedIds(withTags('beta'))).toEqual(['b']);
    await writeFile(join(library, 'b.yaml'), template('b', 'beta,gamma-longer'));
    expect(await selectedIds(withTags('gamma-longer'))).toEqual(['b']);
    const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(cache.entries[join(library, 'b.yaml')].tags).toEqual(['beta', 'gamma-longer']);
  });

  it('ignores a cache file it cannot read as one and writes it anew', async () => {
    await mkdir(join(dir, 'cache'));
    for (const corrupt of [
      '{"version": 1, "entries": {',
      '[]',
      JSON.stringify({ version: 1, entries: { [join(library, 'a.yaml')]: { id: 7 } } }),
      JSON.stringify({ version: 99, entries: {} }),
    ]) {
      await writeFile(cacheFile, corrupt);
      expect(await selectedIds(withTags('alpha'))).toEqual(['a']);
      const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
      expect(Object.keys(cache.entries).sort()).toEqual([join(library, 'a.yaml'), join(library, 'b.yaml')]);
    }
  });

  it('goes on without it when the cache cannot be written', async () => {
    await writeFile(join(dir, 'cache'), 'a file where the cache folder would be');
    expect(await selectedIds(withTags('beta'))).toEqual(['b']);
  });
});
