/**
 * The technology fingerprints `wappalyzer()` uses: wappalyzergo's fingerprints_data.json, which the
 * user supplies (keyhole does not ship it), read once and compiled.
 */
import { readFileSync } from 'node:fs';
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { type FingerprintPattern, parsePattern } from './wappalyzer-pattern.js';

export interface Technology {
  readonly name: string;
  readonly headers: readonly (readonly [string, FingerprintPattern])[];
  readonly cookies: readonly (readonly [string, FingerprintPattern])[];
  readonly html: readonly FingerprintPattern[];
  readonly scriptSrc: readonly FingerprintPattern[];
  readonly meta: readonly (readonly [string, readonly FingerprintPattern[]])[];
  readonly implies: readonly string[];
}

export class FingerprintFileError extends Error {
  override readonly name = 'FingerprintFileError';
}

/** Reads and compiles the fingerprints of `file`; a file that is not one fails naming where. */
export function loadFingerprints(file: string): readonly Technology[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FingerprintFileError(
      `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}`,
    );
  }
  return compileFingerprints(file, parseJson(file, text));
}

function parseJson(file: string, text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (first === undefined) return value;
  const { line, col } = lineAndColumn(text, first.offset);
  throw new FingerprintFileError(
    `${file}:${line}:${col}: not valid JSON (${describeJsonError(printParseErrorCode(first.error))})`,
  );
}

/** jsonc-parser's codes (`CloseBraceExpected`) as words. */
function describeJsonError(code: string): string {
  return code
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace('symbol', 'character');
}

function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compileFingerprints(file: string, document: unknown): Technology[] {
  const apps = isObject(document) ? document.apps : undefined;
  if (!isObject(apps)) {
    throw new FingerprintFileError(
      `${file}: not a fingerprints file: it needs an "apps" object of technologies, as wappalyzergo's fingerprints_data.json has`,
    );
  }
  const technologies = Object.entries(apps).map(([name, app]) =>
    compileTechnology(name, app, new Fields(file, name)),
  );
  if (technologies.length === 0) throw new FingerprintFileError(`${file}: "apps" holds no technology`);
  return technologies;
}

/** Reads the fields of one technology, failing with the field's path in the file. */
class Fields {
  constructor(
    private readonly file: string,
    private readonly app: string,
  ) {}

  fail(field: string, expected: string): never {
    const path = `apps[${JSON.stringify(this.app)}]${field === '' ? '' : `.${field}`}`;
    throw new FingerprintFileError(`${this.file}: ${path} must be ${expected}`);
  }

  strings(app: Json, field: string): string[] {
    const value = app[field];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.fail(field, 'a list of strings');
    }
    return value as string[];
  }

  stringMap(app: Json, field: string): [string, string][] {
    const value = app[field];
    if (value === undefined || value === null) return [];
    if (!isObject(value) || Object.values(value).some((item) => typeof item !== 'string')) {
      this.fail(field, 'an object of strings');
    }
    return Object.entries(value as Record<string, string>);
  }

  listMap(app: Json, field: string): [string, string[]][] {
    const value = app[field];
    if (value === undefined || value === null) return [];
    const valid =
      isObject(value) &&
      Object.values(value).every(
        (list) => Array.isArray(list) && list.every((item) => typeof item === 'string'),
      );
    if (!valid) this.fail(field, 'an object of lists of strings');
    return Object.entries(value as Record<string, string[]>);
  }
}

function compileTechnology(name: string, json: unknown, fields: Fields): Technology {
  if (!isObject(json)) fields.fail('', 'an object');
  return {
    name,
    headers: keyedPatterns(fields.stringMap(json, 'headers')),
    cookies: keyedPatterns(fields.stringMap(json, 'cookies')),
    html: patterns(fields.strings(json, 'html')),
    scriptSrc: patterns(fields.strings(json, 'scriptSrc')),
    meta: fields.listMap(json, 'meta').map(([key, list]) => [key, patterns(list)] as const),
    implies: fields.strings(json, 'implies'),
  };
}

function patterns(texts: readonly string[]): FingerprintPattern[] {
  return texts.map(parsePattern).filter((pattern) => pattern !== undefined);
}

function keyedPatterns(entries: readonly [string, string][]): (readonly [string, FingerprintPattern])[] {
  const out: (readonly [string, FingerprintPattern])[] = [];
  for (const [key, text] of entries) {
    const pattern = parsePattern(text);
    if (pattern !== undefined) out.push([key, pattern]);
  }
  return out;
}
