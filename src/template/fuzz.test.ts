import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseTargetUrl, type TargetUrl } from '../targets/index.js';
import { EXTRACTOR_KEYS, HTTP_KEYS, INFO_KEYS, MATCHER_KEYS, TEMPLATE_KEYS } from './keys.js';
import { listTemplateFiles } from './load.js';
import { parseTemplate, type TemplateResult } from './parse.js';
import { parseRawRequest } from './raw.js';

const corpus = await listTemplateFiles('test/corpus');
const corpusTexts = corpus.map((file) => readFileSync(file, 'utf8'));

/** Every outcome is a result with positioned diagnostics, never an exception. */
function checkResult(result: TemplateResult, text: string): void {
  const lines = text.split('\n').length;
  for (const d of result.diagnostics) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lines + 1);
    expect(d.col).toBeGreaterThanOrEqual(1);
    expect(d.message).not.toBe('');
  }
  if (result.status === 'error') expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  if (result.status === 'unsupported') {
    expect(result.features.length).toBeGreaterThan(0);
    for (const f of result.features) expect(f.line).toBeGreaterThanOrEqual(1);
  }
}

const scalar = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.constantFrom(
    'true',
    'false',
    '',
    '{{BaseURL}}',
    'GET / HTTP/1.1\nHost: x\n\nbody',
    '{{interactsh-url}}',
    'and',
    'or',
  ),
);
const keysOf = (table: object) => fc.constantFrom(...Object.keys(table));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(keysOf(MATCHER_KEYS), keysOf(EXTRACTOR_KEYS), fc.string()), tie('node'), {
      maxKeys: 4,
    }),
  ),
})).node;

const templateLike = fc.record(
  {
    id: fc.oneof(fc.constantFrom('ok-id', 'bad id'), fc.string()),
    info: fc.oneof(fc.dictionary(keysOf(INFO_KEYS), value, { maxKeys: 5 }), value),
    http: fc.array(fc.dictionary(keysOf(HTTP_KEYS), value, { maxKeys: 8 }), { maxLength: 3 }),
    extra: fc.dictionary(keysOf(TEMPLATE_KEYS), value, { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

describe('template parsing under random input', () => {
  it('turns arbitrary text into diagnostics with positions, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        checkResult(parseTemplate('f.yaml', text), text);
      }),
      { numRuns: 400 },
    );
  });

  it('handles random template-shaped documents built from nuclei keys', () => {
    fc.assert(
      fc.property(templateLike, (doc) => {
        const { extra, ...rest } = doc as Record<string, unknown>;
        const text = stringify({ ...rest, ...(extra as object) });
        checkResult(parseTemplate('f.yaml', text), text);
      }),
      { numRuns: 400 },
    );
  });

  it('handles real templates with lines deleted, duplicated, swapped or corrupted', () => {
    const mutation = fc.record({
      file: fc.nat({ max: corpusTexts.length - 1 }),
      edits: fc.array(
        fc.record({
          kind: fc.constantFrom('delete', 'duplicate', 'swap', 'insert', 'truncate'),
          at: fc.nat(),
          other: fc.nat(),
          text: fc.string({ maxLength: 12 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(mutation, ({ file, edits }) => {
        const lines = (corpusTexts[file] ?? '').split('\n');
        for (const edit of edits) {
          const i = edit.at % lines.length;
          const j = edit.other % lines.length;
          if (edit.kind === 'delete') lines.splice(i, 1);
          else if (edit.kind === 'duplicate') lines.splice(i, 0, lines[i] ?? '');
          else if (edit.kind === 'swap') [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
          else if (edit.kind === 'insert')
            lines[i] = `${(lines[i] ?? '').slice(0, j % 20)}${edit.text}${(lines[i] ?? '').slice(j % 20)}`;
          else lines[i] = (lines[i] ?? '').slice(0, j % 40);
          if (lines.length === 0) lines.push('');
        }
        const text = lines.join('\n');
        checkResult(parseTemplate('f.yaml', text), text);
      }),
      { numRuns: 400 },
    );
  });
});

describe('placeholder errors under random text', () => {
  const typos = ['base46', 'to_lowr', 'md6', 'sha5', 'url_encod', 'contians'] as const;
  const fragment = fc.constantFrom(
    'a',
    ' ',
    '"',
    "'",
    '\\',
    'é',
    '😀',
    '{{x}}',
    '{{7*7}}',
    '/',
    ': ',
    ' #',
    '\t',
  );
  const text = (multiLine: boolean) =>
    fc
      .tuple(
        fc.array(multiLine ? fc.oneof(fragment, fc.constant('\n')) : fragment, { maxLength: 12 }),
        fc.constantFrom(...typos),
        fc.array(fragment, { maxLength: 6 }),
      )
      .map(([before, typo, after]) => ({ text: `x${before.join('')}{{${typo}(x)}}${after.join('')}`, typo }));
  const placed = fc.oneof(
    fc.record({ style: fc.constantFrom('QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL'), value: text(true) }),
    fc.record({ style: fc.constantFrom('QUOTE_SINGLE', 'PLAIN'), value: text(false) }),
  );

  it('point at the misspelt helper itself, whatever the quoting and escapes around it', () => {
    fc.assert(
      fc.property(
        placed,
        fc.constantFrom('header', 'variable', 'body', 'path'),
        ({ style, value }, where) => {
          const request: Record<string, unknown> = { method: 'POST', path: ['{{BaseURL}}'] };
          const template: Record<string, unknown> = { id: 't', info: { name: 'T', author: 'me' } };
          if (where === 'header') request.headers = { 'X-Test': value.text };
          if (where === 'body') request.body = value.text;
          if (where === 'path') request.path = [value.text];
          if (where === 'variable') template.variables = { v: value.text };
          template.http = [request];
          const source = stringify(template, {
            defaultStringType: style as 'QUOTE_DOUBLE',
            defaultKeyType: 'PLAIN',
            lineWidth: 0,
          });
          const found = parseTemplate('f.yaml', source).diagnostics.filter((d) => d.severity === 'error');
          expect(found.map((d) => d.message)).toEqual([
            expect.stringContaining(`unknown function "${value.typo}"`),
          ]);
          const d = found[0];
          const line = source.split('\n')[(d?.line ?? 0) - 1] ?? '';
          expect(line.slice((d?.col ?? 0) - 1)).toMatch(new RegExp(`^${value.typo}\\(`));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('raw request parsing under random input', () => {
  const target = parseTargetUrl('https://app.test/base?q=1') as TargetUrl;
  it('returns a request or an error for any text, safe or unsafe', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.boolean(), (text, unsafe) => {
        const result = parseRawRequest(text, target, { unsafe });
        if (!(result instanceof Error)) {
          expect(typeof result.request.target).toBe('string');
          expect(result.request.target.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps any request path made of URL characters and valid escapes exactly, when the target has no path', () => {
    const bare = parseTargetUrl('https://app.test') as TargetUrl;
    const pathChar = fc.constantFrom('a', 'b', 'c', '/', '.', ';', '%2e', '%5c', '..', '5');
    fc.assert(
      fc.property(fc.array(pathChar, { minLength: 1, maxLength: 30 }), (chars) => {
        const path = `/x${chars.join('')}`;
        const result = parseRawRequest(`GET ${path} HTTP/1.1\r\n\r\n`, bare);
        expect(result instanceof Error ? undefined : result.request.target).toBe(path);
      }),
      { numRuns: 300 },
    );
  });
});
