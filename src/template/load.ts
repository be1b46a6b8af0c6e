import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  Diagnostics,
  describeReadProblem,
  type ReadProblem,
  readBounded,
  sortDiagnostics,
} from '../source/index.js';
import { type ParseOptions, parseTemplate, type TemplateResult } from './parse.js';
import { type PayloadFileReader, payloadFileValues } from './payloads.js';

/** Template files are YAML; extension compared case-insensitively. */
export function isTemplateFile(path: string): boolean {
  const lower = path.toLowerCase();
  return lower.endsWith('.yaml') || lower.endsWith('.yml');
}

export interface LoadOptions {
  /**
   * The root of the template tree (like the nuclei-templates folder): payload files are looked up
   * from the template's folder upwards, but never above this folder. Defaults to the folder given
   * to {@link loadTemplates}, or the template's own folder for a single file.
   */
  readonly root?: string;
}

/**
 * Payload files the way nuclei finds them (`generators/validate.go`): a relative reference such as
 * `helpers/wordpress/plugins/akismet.txt` is tried in the working directory, in the templates folder
 * (`root`: the folder given with `-t`), then in the template's folder and each of its parents up to
 * the filesystem root; so `http/technologies/wordpress/plugins/akismet.yaml` finds
 * `helpers/wordpress/plugins/akismet.txt` at the top of a nuclei-templates checkout even when only
 * `nuclei-templates/http` is named. As nuclei's sandbox does, a file is only read when it lies in the
 * working directory, the templates folder or the template's folder, or is one of nuclei-templates'
 * `helpers/` files; absolute paths and `..` are refused: a template cannot read (and send to a
 * target) files from elsewhere on the machine.
 */
export function payloadFileReader(
  root: string,
  cwd: string = process.cwd(),
  isFileAt: (path: string) => boolean = isFile,
): PayloadFileReader {
  const rootDir = resolve(root);
  const workDir = resolve(cwd);
  return {
    read(reference, templateFile) {
      if (isAbsolute(reference) || reference.split(/[\\/]/).includes('..')) {
        return {
          error: `payload file "${reference}" must be a relative path inside the templates folder (no absolute path, no "..")`,
        };
      }
      const templateDir = dirname(resolve(templateFile));
      const tried = candidateFolders(workDir, rootDir, templateDir).map((dir) => join(dir, reference));
      const found = tried.find(isFileAt);
      if (found === undefined) {
        const shown = tried.map((t) => relative(workDir, t) || t).join(', ');
        return {
          error: `payload file "${reference}" not found (looked for ${shown}); place it beside the template or under the templates folder`,
        };
      }
      if (
        !isNucleiHelper(reference) &&
        ![workDir, rootDir, templateDir].some((dir) => isInside(found, dir))
      ) {
        return {
          error: `payload file "${reference}" was found at ${found}, outside the working directory and the templates folder; it is not read, so that a template cannot send files from elsewhere on the machine`,
        };
      }
      try {
        return { path: found, values: payloadFileValues(readFileSync(found, 'utf8')) };
      } catch (error) {
        return { error: `payload file "${found}" cannot be read: ${(error as Error).message}` };
      }
    },
  };
}

/**
 * `helpers/…` (no hidden segment): nuclei-templates' own helper files, read wherever the search
 * finds them above the template, as nuclei reads them from its templates directory.
 */
function isNucleiHelper(reference: string): boolean {
  const segments = reference.split(/[\\/]/);
  return segments[0] === 'helpers' && !segments.some((segment) => segment.startsWith('.'));
}

/** Where a payload file is looked for, in nuclei's order, each folder once. */
function candidateFolders(workDir: string, rootDir: string, templateDir: string): string[] {
  const folders = [workDir, rootDir];
  for (let dir = templateDir; ; dir = dirname(dir)) {
    folders.push(dir);
    if (dirname(dir) === dir) break;
  }
  return [...new Set(folders)];
}

/**
 * {@link isFile} remembering its answers, for loading many templates at once: each template's
 * payload files are looked for in the folders above it, which the templates of a library share.
 */
export function rememberedFileChecks(): (path: string) => boolean {
  const known = new Map<string, boolean>();
  return (path) => {
    let answer = known.get(path);
    if (answer === undefined) {
      answer = isFile(path);
      known.set(path, answer);
    }
    return answer;
  };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isInside(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The largest template file read, checked before a byte is parsed: the largest nuclei templates
 * are a few hundred KiB, and parsing takes tens of times a file's size in memory.
 */
export const MAX_TEMPLATE_BYTES = 4 << 20;
/** How long a template given as a pipe may take to be written. */
const TEMPLATE_READ_TIMEOUT_MS = 10_000;

export type TemplateFileText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string };

/** A template file's text, up to {@link MAX_TEMPLATE_BYTES}; otherwise why it cannot be read. */
export async function readTemplateText(file: string): Promise<TemplateFileText> {
  const read = await readBounded(file, { maxBytes: MAX_TEMPLATE_BYTES, timeoutMs: TEMPLATE_READ_TIMEOUT_MS });
  return read.ok ? read : { ok: false, reason: readProblemMessage(read.problem) };
}

/**
 * {@link readTemplateText} for a file found in a folder, which was a regular file when listed: read
 * at once, a small part of the time the asynchronous reads take for a library of thousands of
 * small files. A file that is no longer a readable regular file under the limit is read as
 * {@link readTemplateText} reads it, which says why.
 */
export function readListedTemplateText(file: string): Promise<TemplateFileText> {
  let fd: number | undefined;
  try {
    // Non-blocking: a FIFO put where the file was listed must not hold the open (it is refused below).
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_TEMPLATE_BYTES) return readTemplateText(file);
    return Promise.resolve({ ok: true, text: readFileSync(fd, 'utf8') });
  } catch {
    return readTemplateText(file);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads and parses one template file; I/O errors become diagnostics, never exceptions. */
export async function loadTemplate(
  file: string,
  options: LoadOptions = {},
  isFileAt?: (path: string) => boolean,
): Promise<TemplateResult> {
  return parseRead(file, await readTemplateText(file), options.root ?? dirname(file), isFileAt);
}

function parseRead(
  file: string,
  read: TemplateFileText,
  root: string,
  isFileAt: ((path: string) => boolean) | undefined,
): TemplateResult {
  if (!read.ok) return fileError(file, read.reason);
  const parseOptions: ParseOptions = { payloadFiles: payloadFileReader(root, undefined, isFileAt) };
  return parseTemplate(file, read.text, parseOptions);
}

/**
 * Loads every template under the given paths: a file is read as is (whatever its extension), a
 * folder recursively for `.yaml`/`.yml` files, in a stable (sorted) order. One result per file;
 * a missing path is an error result of its own.
 */
export async function loadTemplates(paths: readonly string[]): Promise<TemplateResult[]> {
  const results: TemplateResult[] = [];
  for (const path of paths) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      // Read as a file, which says why it cannot be.
      results.push(await loadTemplate(path));
      continue;
    }
    if (!info.isDirectory()) {
      results.push(await loadTemplate(path));
      continue;
    }
    const isFileAt = rememberedFileChecks();
    for (const file of await listTemplateFiles(path)) {
      results.push(parseRead(file, await readListedTemplateText(file), path, isFileAt));
    }
  }
  return results;
}

/**
 * `.yaml`/`.yml` files under a folder, recursively, sorted; hidden folders are skipped. Each
 * folder is listed with one synchronous call: listed one after another asynchronously, the
 * folders of a library (hundreds of them) kept the thread waiting most of a selection that the
 * caches answer (56 % idle in a profile).
 */
export async function listTemplateFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = (current: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(full);
      } else if (entry.isFile() && isTemplateFile(entry.name)) out.push(full);
    }
  };
  walk(dir);
  return out;
}

function readProblemMessage(problem: ReadProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'no such file or folder';
    case 'folder':
      return 'is a folder';
    case 'denied':
      return 'permission denied';
    case 'too-large':
      return `${describeReadProblem(problem)} (the largest nuclei templates are a few hundred KiB)`;
    default:
      return `cannot be read (${describeReadProblem(problem)})`;
  }
}

function fileError(file: string, message: string): TemplateResult {
  const diagnostics = new Diagnostics(file);
  diagnostics.error({ line: 1, col: 1, offset: 0 }, [], message);
  return { status: 'error', file, diagnostics: sortDiagnostics(diagnostics.items) };
}
