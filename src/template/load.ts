import { readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
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
 * Payload files the way nuclei finds them in the nuclei-templates layout: a relative reference such
 * as `helpers/wordlists/users.txt` is tried against the template's folder, then each parent folder,
 * up to the templates root; so `http/technologies/wordpress/plugins/akismet.yaml` finds
 * `helpers/wordpress/plugins/akismet.txt` at the root. Unlike nuclei, the search never leaves the
 * root and absolute paths or `..` are refused, so a template cannot read (and send to a target)
 * files from elsewhere on the machine.
 */
export function payloadFileReader(root: string): PayloadFileReader {
  const rootDir = resolve(root);
  return {
    read(reference, templateFile) {
      if (isAbsolute(reference) || reference.split(/[\\/]/).includes('..')) {
        return {
          error: `payload file "${reference}" must be a relative path inside the templates folder (no absolute path, no "..")`,
        };
      }
      const tried: string[] = [];
      let dir = dirname(resolve(templateFile));
      for (;;) {
        const candidate = join(dir, reference);
        tried.push(candidate);
        if (isFile(candidate)) {
          try {
            return { path: candidate, values: payloadFileValues(readFileSync(candidate, 'utf8')) };
          } catch (error) {
            return { error: `payload file "${candidate}" cannot be read: ${(error as Error).message}` };
          }
        }
        if (dir === rootDir || !isInside(dir, rootDir)) break;
        const parent = dirname(dir);
        if (parent === dir) break;
        dir = parent;
      }
      const shown = tried.map((t) => relative(process.cwd(), t) || t).join(', ');
      return {
        error: `payload file "${reference}" not found (looked for ${shown}); place it beside the template or under the templates folder`,
      };
    },
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

/** Reads and parses one template file; I/O errors become diagnostics, never exceptions. */
export async function loadTemplate(file: string, options: LoadOptions = {}): Promise<TemplateResult> {
  const read = await readTemplateText(file);
  if (!read.ok) return fileError(file, read.reason);
  const text = read.text;
  const root = options.root ?? dirname(file);
  const parseOptions: ParseOptions = { payloadFiles: payloadFileReader(root) };
  return parseTemplate(file, text, parseOptions);
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
    for (const file of await listTemplateFiles(path)) {
      results.push(await loadTemplate(file, { root: path }));
    }
  }
  return results;
}

/** `.yaml`/`.yml` files under a folder, recursively, sorted; hidden folders are skipped. */
export async function listTemplateFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (current: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await walk(full);
      } else if (entry.isFile() && isTemplateFile(entry.name)) out.push(full);
    }
  };
  await walk(dir);
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
