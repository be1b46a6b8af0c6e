import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listTemplateFiles } from './load.js';
import { parseTemplateText } from './parse.js';
import { readQuickFields } from './quick-metadata.js';
import { type FilterFields, readMetadata } from './select.js';

const folders = ['../../test/corpus', '../../test/library', '../../test/nuclei/testdata'].map((f) =>
  fileURLToPath(new URL(f, import.meta.url)),
);

/** The filter fields of the whole file, read through the YAML parser. */
function parsedFields(file: string, text: string): FilterFields | undefined {
  const root = parseTemplateText(file, text).root;
  const metadata = root === undefined ? undefined : readMetadata(file, text, root);
  if (metadata === undefined) return undefined;
  const { authors, tags, severity } = metadata.info;
  return {
    file,
    id: metadata.id,
    protocol: metadata.protocol,
    info: { authors, tags, ...(severity === undefined ? {} : { severity }) },
  };
}

const quick = (text: string) => readQuickFields('t.yaml', text);

describe('reading the filter fields from lines', () => {
  it('reads what the YAML parser reads, for every template of the test corpora it reads at all', async () => {
    let read = 0;
    let total = 0;
    for (const folder of folders) {
      for (const file of await listTemplateFiles(folder)) {
        const text = readFileSync(file, 'utf8');
        const fields = readQuickFields(file, text);
        total++;
        if (fields === undefined) continue;
        read++;
        expect(fields, file).toEqual(parsedFields(file, text));
      }
    }
    expect(total).toBeGreaterThan(40);
    expect(read / total).toBeGreaterThan(0.8);
  });

  it('reads author and tags written as lists, indented or not, with comments', () => {
    const text = [
      'id: x-1 # the id',
      'info:',
      '  name: "A name: with quotes"',
      '  author:',
      '    - Alice',
      '    - bob # second',
      '  tags:',
      '  - CVE',
      '  - apache',
      '  severity: High',
      '  metadata:',
      '    max-request: 1',
      'http:',
      '  - path: ["{{BaseURL}}"]',
    ].join('\n');
    expect(quick(text)).toEqual({
      file: 't.yaml',
      id: 'x-1',
      protocol: 'http',
      info: { authors: ['alice', 'bob'], tags: ['cve', 'apache'], severity: 'high' },
    });
  });

  it('gives up on what YAML reads differently from its text, so the file is parsed instead', () => {
    const base = 'id: x\ninfo:\n  name: n\n  author: a\n';
    expect(quick(`${base}  tags: "cve"\n`)).toBeUndefined();
    expect(quick(`${base}  tags: [cve, apache]\n`)).toBeUndefined();
    expect(quick(`${base}  tags: null\n`)).toBeUndefined();
    expect(quick(`${base}  tags: *shared\n`)).toBeUndefined();
    expect(quick(`${base}  severity: hihg\n`)).toBeUndefined();
    expect(quick(`${base}  tags: a\n  tags: b\n`)).toBeUndefined();
    expect(quick(`id: x\ninfo: {name: n, author: a}\n`)).toBeUndefined();
    expect(quick(`id: x\ninfo:\n  author: a\n`)).toBeUndefined();
    expect(quick(`---\n${base}`)).toBeUndefined();
    expect(quick(`${base}\tseverity: high\n`)).toBeUndefined();
    expect(quick(`${base}http:\n- path: x\n`)).toBeUndefined();
  });
});
