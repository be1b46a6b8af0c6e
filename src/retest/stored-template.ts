import { dirname } from 'node:path';
import { usesOast } from '../engine/index.js';
import { type Diagnostic, formatBytes } from '../source/index.js';
import {
  isTemplateFile,
  MAX_TEMPLATE_BYTES,
  type ParsedTemplate,
  type ParseOptions,
  type PayloadFileReader,
  parseTemplate,
  payloadFileReader,
  readTemplateText,
  type TemplateResult,
} from '../template/index.js';

/** A template as the store keeps it for a scan or a finding. */
export interface StoredTemplateRef {
  readonly id: string;
  /** The path it was read from when the scan ran ("" when unknown). */
  readonly path: string;
  /** Its text, base64 ("" when the store has none, e.g. imported results without it). */
  readonly encoded: string;
}

export type StoredTemplate =
  | {
      readonly status: 'ok';
      readonly template: ParsedTemplate;
      /** `store`: the stored text; `file`: the store had none, the file at its path was read. */
      readonly from: 'store' | 'file';
      readonly text: string;
    }
  /** Valid, but uses something keyhole does not run (any more, or yet). */
  | { readonly status: 'unsupported'; readonly reason: string }
  | { readonly status: 'error'; readonly reason: string };

/**
 * The template exactly as the scan ran it: parsed from the stored text, with `template-path` the
 * path it had then. When the store holds no text (results imported without `template-encoded`),
 * the file at the stored path is read instead.
 *
 * Payload files are not stored. They are read beside the template only when the file at the stored
 * path still holds exactly the stored text, i.e. it is a template on this machine; stored text alone
 * (it may come from an imported file) never makes keyhole read local files and send their lines.
 */
export async function loadStoredTemplate(ref: StoredTemplateRef): Promise<StoredTemplate> {
  if (ref.encoded === '') return fromFile(ref);
  // The stored text may come from an imported file: it is held to the size of a template file.
  const bytes = Buffer.from(ref.encoded, 'base64');
  if (bytes.length > MAX_TEMPLATE_BYTES) {
    return {
      status: 'error',
      reason: `the stored template is ${formatBytes(bytes.length)}, over the limit of ${formatBytes(MAX_TEMPLATE_BYTES)} for a template`,
    };
  }
  const text = bytes.toString('utf8');
  const onDisk = ref.path === '' ? undefined : await readText(ref.path);
  const payloadFiles = onDisk === text ? payloadFileReader(dirname(ref.path)) : noPayloadFiles(ref.path);
  const options: ParseOptions = { payloadFiles };
  return outcome(parseTemplate(fileName(ref), text, options), 'store', text, 'the stored template');
}

async function fromFile(ref: StoredTemplateRef): Promise<StoredTemplate> {
  if (ref.path === '') {
    return {
      status: 'error',
      reason: `the text of template ${ref.id} was not stored and its path is unknown`,
    };
  }
  // The path may come from an imported file: only a template file is read, and what is wrong with
  // it is not quoted (its text is not the store's to show).
  const read = isTemplateFile(ref.path) ? await readTemplateText(ref.path) : undefined;
  if (read === undefined || !read.ok) {
    const why = read === undefined ? '' : `: ${read.reason}`;
    return {
      status: 'error',
      reason: `the text of template ${ref.id} was not stored and ${ref.path} cannot be read as a template${why}`,
    };
  }
  const text = read.text;
  const options: ParseOptions = { payloadFiles: payloadFileReader(dirname(ref.path)) };
  const result = parseTemplate(ref.path, text, options);
  if (result.status === 'error') {
    return {
      status: 'error',
      reason: `the text of template ${ref.id} was not stored and ${ref.path} has errors (keyhole templates validate ${ref.path} lists them)`,
    };
  }
  return outcome(result, 'file', text, ref.path);
}

/** The stored text alone reads no local file. */
function noPayloadFiles(path: string): PayloadFileReader {
  const where = path === '' ? 'its path is unknown' : `${path} is gone or no longer holds the stored text`;
  return {
    read: (reference) => ({
      error: `payload file "${reference}" is not stored with the template and is read only beside it; ${where}`,
    }),
  };
}

function outcome(result: TemplateResult, from: 'store' | 'file', text: string, what: string): StoredTemplate {
  switch (result.status) {
    case 'ok':
      return { status: 'ok', template: result.template, from, text };
    case 'unsupported': {
      const features = [...new Set(result.features.map((f) => f.feature))].join(', ');
      return { status: 'unsupported', reason: `${what} uses what keyhole does not run: ${features}` };
    }
    case 'error':
      return { status: 'error', reason: `${what} does not parse: ${problems(result.diagnostics)}` };
  }
}

/** The first error where it is in the text, and how many more there are. */
function problems(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const [first] = errors;
  if (first === undefined) return 'unknown error';
  const field = first.path === '' ? '' : `${first.path}: `;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `line ${first.line}, column ${first.col}: ${field}${first.message}${more}`;
}

/** The name the template is parsed under: its path, so its events carry the same `template-path`. */
function fileName(ref: StoredTemplateRef): string {
  return ref.path === '' ? `${ref.id}.yaml` : ref.path;
}

async function readText(path: string): Promise<string | undefined> {
  const read = await readTemplateText(path);
  return read.ok ? read.text : undefined;
}

/**
 * Whether a finding's template writes `{{interactsh-url}}`: its retest then needs an interactsh
 * registration, as its scan did (and only then).
 */
export async function needsOast(
  findings: readonly {
    readonly templateId: string;
    readonly templatePath: string;
    readonly templateEncoded: string;
  }[],
): Promise<boolean> {
  const seen = new Set<string>();
  for (const finding of findings) {
    const key = `${finding.templateId}\n${finding.templatePath}\n${finding.templateEncoded}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const stored = await loadStoredTemplate({
      id: finding.templateId,
      path: finding.templatePath,
      encoded: finding.templateEncoded,
    });
    if (stored.status === 'ok' && usesOast(stored.template)) return true;
  }
  return false;
}
