import type { Position } from './node.js';
import { printable } from './printable.js';

export type Severity = 'error' | 'warning';

/** One problem found in a file, with where it is and, when we can tell, how to fix it. */
export interface Diagnostic {
  readonly severity: Severity;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Field path inside the document, e.g. `static[0].headers[1].key`; empty for the whole file. */
  readonly path: string;
  readonly message: string;
}

export type PathSegment = string | number;
export type Path = readonly PathSegment[];

export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/**
 * `file:line:col: message`, the format editors and CI annotators understand; what it quotes of
 * the file is made {@link printable}, so a diagnostic is always one line of visible text.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.col}`;
  const prefix = d.severity === 'warning' ? 'warning: ' : '';
  const field = d.path === '' ? '' : `${d.path}: `;
  return printable(`${where}: ${prefix}${field}${d.message}`);
}

/** Collects every problem of a file so that users see them all at once, not one per run. */
export class Diagnostics {
  readonly items: Diagnostic[] = [];

  constructor(readonly file: string) {}

  error(pos: Position, path: Path, message: string): void {
    this.add('error', pos, path, message);
  }

  warning(pos: Position, path: Path, message: string): void {
    this.add('warning', pos, path, message);
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  private add(severity: Severity, pos: Position, path: Path, message: string): void {
    this.items.push({
      severity,
      file: this.file,
      line: pos.line,
      col: pos.col,
      path: formatPath(path),
      message,
    });
  }
}

export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  return [...items].sort((a, b) => a.line - b.line || a.col - b.col);
}
