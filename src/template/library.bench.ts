/**
 * `npm run bench -- templates`: loading a library of templates, against reading and YAML-parsing the
 * same files in the same run. The library is generated: copies of test/corpus (32 templates) with
 * their ids and tags varied, 10,000 files by default (`BENCH_TEMPLATES`).
 */
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from '../bench/report.js';
import { selectTemplates } from './library.js';
import { listTemplateFiles, loadTemplates } from './load.js';
import { parseTemplateText } from './parse.js';
import { NO_FILTER, type TemplateFilter } from './select.js';

const count = Number(process.env.BENCH_TEMPLATES ?? 10_000);
const corpus = fileURLToPath(new URL('../../test/corpus', import.meta.url));

/** One tag in a hundred copies gets: a filter for it selects about 1% of the library. */
const RARE_TAG = 'bench-rare';

export const suite: BenchSuite = async (report) => {
  const dir = await mkdtemp(join(tmpdir(), 'keyhole-bench-templates-'));
  try {
    await generateLibrary(dir, count);
    const files = await listTemplateFiles(dir);
    const filter: TemplateFilter = { ...NO_FILTER, tags: [RARE_TAG], severities: ['critical', 'high'] };
    const readAndParse = async () => {
      for (const file of files) parseTemplateText(file, await readFile(file, 'utf8'));
    };
    // The same read as one synchronous call per file: the baseline is the faster of the two, so
    // that reading files faster than the baseline does cannot pass for a faster load.
    const readSyncAndParse = async () => {
      for (const file of files) parseTemplateText(file, readFileSync(file, 'utf8'));
    };
    await readAndParse(); // warms up the parser and the file cache for every row alike
    const readParseAsync = await timed(readAndParse);
    const readParseSync = await timed(readSyncAndParse);
    const readParse = Math.min(readParseAsync, readParseSync);
    const loadAll = await timed(() => loadTemplates([dir]));
    const selectAll = await timed(() => selectTemplates([dir], { filter: NO_FILTER }));
    let selectedFiles: string[] = [];
    const selectSome = await timed(async () => {
      const selection = await selectTemplates([dir], { filter });
      selectedFiles = selection.results.map((r) => r.file);
    });
    const loadSome = () => loadTemplates(selectedFiles);
    let loadSelected = await timed(loadSome);
    const cacheFile = join(dir, 'cache', 'metadata.json');
    const selectCaching = await timed(() => selectTemplates([dir], { filter, cacheFile }));
    const selectFromCache = () => selectTemplates([dir], { filter, cacheFile });
    let selectCached = await timed(selectFromCache);
    const checkedCacheFile = join(dir, 'cache', 'checked.json');
    const withChecked = { filter: NO_FILTER, checkedCacheFile };
    const checkedWriting = await timed(() => selectTemplates([dir], withChecked));
    const checkedAll = await timed(() => selectTemplates([dir], withChecked));
    const bothCaches = { filter, cacheFile, checkedCacheFile };
    const selectFromBoth = () => selectTemplates([dir], bothCaches);
    let checkedSome = await timed(selectFromBoth);
    // The rows the filtered-selection goal compares take seconds: two more alternating rounds of
    // them, each keeping its best, so that the machine's load swinging between rows weighs less.
    for (let round = 0; round < 2; round++) {
      loadSelected = Math.min(loadSelected, await timed(loadSome));
      selectCached = Math.min(selectCached, await timed(selectFromCache));
      checkedSome = Math.min(checkedSome, await timed(selectFromBoth));
    }
    report.heading(`Loading templates (${files.length.toLocaleString('en-US')} files)`);
    report.table(
      ['what', 'time (ms)', '× the faster read + YAML parse (baseline)'],
      [
        ['read (readFile) + YAML parse every file', readParseAsync, readParseAsync / readParse],
        ['read (readFileSync) + YAML parse every file', readParseSync, readParseSync / readParse],
        ['load every template (loadTemplates: parse, compile)', loadAll, loadAll / readParse],
        ['select with no filter (metadata, then compile)', selectAll, selectAll / readParse],
        [
          `select -tags ${RARE_TAG} -s critical,high (${selectedFiles.length} taken)`,
          selectSome,
          selectSome / readParse,
        ],
        ['load only those templates (loadTemplates on their files)', loadSelected, loadSelected / readParse],
        ['the same selection, writing the metadata cache', selectCaching, selectCaching / readParse],
        ['the same selection, from the metadata cache', selectCached, selectCached / readParse],
        [
          'select with no filter, writing the compiled-template cache',
          checkedWriting,
          checkedWriting / readParse,
        ],
        ['select with no filter, from the compiled-template cache', checkedAll, checkedAll / readParse],
        ['the filtered selection, from both caches', checkedSome, checkedSome / readParse],
      ],
    );
    report.note(
      `Filtered selection from the metadata cache ÷ loading only the selected templates: ${(selectCached / loadSelected).toFixed(2)}; ` +
        `from both caches: ${(checkedSome / loadSelected).toFixed(2)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** `count` template files: corpus copies in folders of their own, the corpus helpers at the root. */
export async function generateLibrary(dir: string, count: number): Promise<void> {
  await cp(join(corpus, 'helpers'), join(dir, 'helpers'), { recursive: true });
  const sources = await corpusTemplates();
  for (let i = 0; i < count; i++) {
    const source = sources[i % sources.length] as { rel: string; text: string };
    const target = join(dir, `copy-${Math.floor(i / sources.length)}`, source.rel);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, varied(source.text, i));
  }
}

async function corpusTemplates(): Promise<{ rel: string; text: string }[]> {
  const files = (await readdir(corpus, { recursive: true }))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(corpus, f));
  return Promise.all(
    files.map(async (file) => ({ rel: relative(corpus, file), text: await readFile(file, 'utf8') })),
  );
}

/** The copy's own id, and a tag of its own (the rare one for one copy in a hundred). */
function varied(text: string, i: number): string {
  const tag = i % 100 === 0 ? RARE_TAG : `bench-${i % 37}`;
  return text.replace(/^id: (.+)$/m, `id: $1-copy-${i}`).replace(/^(\s+)tags: (.+)$/m, `$1tags: $2,${tag}`);
}
