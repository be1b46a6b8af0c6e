import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type CompiledExpression, compileExpression } from '../dsl/index.js';
import { formatDiagnostic } from '../source/index.js';
import { selectTemplates } from './library.js';
import { listTemplateFiles } from './load.js';
import { parseTemplate, parseTemplateText } from './parse.js';
import {
  conditionScope,
  excludedByDefault,
  filterTakes,
  idMatches,
  NO_FILTER,
  readHeadMetadata,
  readMetadata,
  type TemplateFilter,
  type TemplateMetadata,
} from './select.js';

const library = fileURLToPath(new URL('../../test/library', import.meta.url));

function metadata(overrides: Partial<TemplateMetadata['info']> & { id?: string; file?: string } = {}) {
  const { id = 'x', file = '/t/http/x.yaml', ...info } = overrides;
  return {
    file,
    id,
    protocol: 'http',
    info: { name: 'x', authors: ['me'], tags: [], references: [], ...info },
  } satisfies TemplateMetadata;
}

const filter = (given: Partial<TemplateFilter>): TemplateFilter => ({ ...NO_FILTER, ...given });

describe('template ids as nuclei globs them', () => {
  it('matches case-insensitively, with * and ? not crossing a slash, and [...] classes', () => {
    expect(idMatches('CVE-2024-*', 'cve-2024-1234')).toBe(true);
    expect(idMatches('cve-2024-*', 'cve-2023-1234')).toBe(false);
    expect(idMatches('env-???e', 'env-file')).toBe(true);
    expect(idMatches('cve-202[34]-1', 'cve-2024-1')).toBe(true);
    expect(idMatches('cve-202[^34]-1', 'cve-2024-1')).toBe(false);
    expect(idMatches('a.b', 'axb')).toBe(false);
    expect(idMatches('a[', 'a[')).toBe(false);
  });
});

describe('the metadata filters, combined as nuclei combines them', () => {
  it('takes everything when no filter is given, and a template without severity when none is asked', () => {
    expect(filterTakes(NO_FILTER, metadata())).toBe(true);
    expect(filterTakes(filter({ excludeSeverities: ['info'] }), metadata())).toBe(true);
    expect(filterTakes(filter({ severities: ['info'] }), metadata())).toBe(false);
  });

  it('lets an exclusion win over an inclusion, and -itags or -it win over both', () => {
    const cve = metadata({ tags: ['cve', 'dos'], file: '/t/http/cves/a.yaml' });
    expect(filterTakes(filter({ tags: ['cve'], excludeTags: ['dos'] }), cve)).toBe(false);
    expect(filterTakes(filter({ tags: ['other'], includeTags: ['dos'] }), cve)).toBe(true);
    expect(
      filterTakes(filter({ excludePaths: ['/t/http'], includePaths: ['/t/http/cves/a.yaml'] }), cve),
    ).toBe(true);
    expect(filterTakes(filter({ excludePaths: ['/t/http/cve'] }), cve)).toBe(true);
  });

  it('leaves out by default what .nuclei-ignore lists, unless the filters force it in', () => {
    const dos = metadata({ tags: ['dos'] });
    const defaults = { tags: ['dos'], paths: [] };
    expect(excludedByDefault(defaults, NO_FILTER, dos)).toBe(true);
    expect(excludedByDefault(defaults, filter({ includeTags: ['dos'] }), dos)).toBe(false);
    expect(excludedByDefault({ tags: [], paths: ['/t/http/x.yaml'] }, NO_FILTER, dos)).toBe(true);
  });
});

describe('reading metadata without compiling a template', () => {
  it('reads id, tags and authors lower-cased and split at commas, and the protocol key', () => {
    const text = 'id: A-1\ninfo:\n  name: n\n  author: Alice, bob\n  tags: CVE,Apache\ndns:\n  - name: x\n';
    const read = readMetadata('a.yaml', text, parseTemplateText('a.yaml', text).root as never);
    expect(read).toMatchObject({
      id: 'A-1',
      protocol: 'dns',
      info: { authors: ['alice', 'bob'], tags: ['cve', 'apache'] },
    });
  });

  it('reads from the id and info blocks alone what it reads from the whole file, for every corpus template', async () => {
    const corpus = fileURLToPath(new URL('../../test/corpus', import.meta.url));
    const files = [...(await listTemplateFiles(corpus)), ...(await listTemplateFiles(library))];
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const whole = readMetadata(file, text, parseTemplateText(file, text).root as never);
      expect(readHeadMetadata(file, text), file).toEqual(whole);
    }
  });

  it('gives nothing from the head when the info block leans on an anchor elsewhere, so the file is parsed whole', () => {
    const text = 'x: &who alice\nid: a\ninfo:\n  name: n\n  author: *who\nhttp: []\n';
    expect(readHeadMetadata('a.yaml', text)).toBeUndefined();
    expect(
      readMetadata('a.yaml', text, parseTemplateText('a.yaml', text).root as never)?.info.authors,
    ).toEqual(['alice']);
  });

  it('gives nothing for a file without an id or info, which is then compiled and reported', () => {
    const text = 'info:\n  name: n\n  author: a\n';
    expect(readMetadata('a.yaml', text, parseTemplateText('a.yaml', text).root as never)).toBeUndefined();
  });
});

describe('-tc conditions', () => {
  it("see nuclei's names: metadata keys with - as _, classification, methods, bodies and operator types", () => {
    const result = parseTemplate(
      'x.yaml',
      `id: x
info:
  name: X
  author: a
  severity: high
  tags: cve
  metadata:
    max-request: 2
  classification:
    cvss-score: 7.5
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}

        user=Admin
    matchers:
      - type: status
        status: [200]
    extractors:
      - type: regex
        regex: ["x"]
`,
    );
    if (result.status !== 'ok') throw new Error('the template should parse');
    const scope = conditionScope(result.template);
    expect(scope.get('max_request')).toBe(2);
    expect(scope.get('cvss_score')).toBe(7.5);
    expect(scope.get('http_method')).toEqual(['POST']);
    expect(scope.get('body')).toBe('user=admin');
    expect(scope.get('matcher_type')).toEqual(['status']);
    expect(scope.get('extractor_type')).toEqual(['regex']);
    const condition = compileExpression('max_request > 1 && severity == "high"') as CompiledExpression;
    expect(condition.evaluate(scope)).toBe(true);
  });
});

describe('selecting from a folder', () => {
  it('compiles only what the filters take, and counts the rest', async () => {
    const selection = await selectTemplates([library], { filter: filter({ tags: ['cve'] }) });
    const files = selection.results.map((r) => r.file.slice(library.length + 1));
    expect(files).toEqual(['http/cves/2023/CVE-2023-0002.yaml', 'http/cves/2024/CVE-2024-0001.yaml']);
    expect(selection.filteredOut).toBe(7);
    expect(selection.results.every((r) => !r.named)).toBe(true);
  });

  it('marks a file given by itself as named', async () => {
    const file = join(library, 'http/broken/typo.yaml');
    const selection = await selectTemplates([file], { filter: NO_FILTER });
    expect(selection.results).toMatchObject([{ file, status: 'error', named: true }]);
  });

  it('refuses a file of a folder over the size limit before reading it, as a file given by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyhole-select-'));
    try {
      const big = join(dir, 'big.yaml');
      writeFileSync(big, 'x'.repeat(5 << 20));
      const inFolder = await selectTemplates([dir], { filter: NO_FILTER });
      const named = await selectTemplates([big], { filter: NO_FILTER });
      const message = `${big}:1:1: it is 5 MiB, over the limit of 4 MiB (the largest nuclei templates are a few hundred KiB)`;
      for (const { results } of [inFolder, named])
        expect(results.map((r) => r.diagnostics.map(formatDiagnostic))).toEqual([[message]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
