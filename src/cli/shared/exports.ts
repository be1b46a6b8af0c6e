/**
 * Writing the exports: `-me DIR`, `-se FILE`, `-je FILE` during a scan, and `keyhole findings export`
 * from the store. The events given are already redacted; only findings (matcher-status true) are
 * exported, as nuclei exports them.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ResultEvent } from '../../event/index.js';
import {
  type ExportTool,
  jsonExport,
  MARKDOWN_INDEX,
  markdownFileName,
  markdownFinding,
  markdownIndexHeader,
  markdownIndexRow,
  sarifExport,
} from '../../export/index.js';
import { UserError } from '../exit.js';
import { messageOf } from './errors.js';
import { KEYHOLE_VERSION } from './version.js';

export const TOOL: ExportTool = { name: 'keyhole', version: KEYHOLE_VERSION };

export interface ExportPaths {
  /** `-me DIR` */
  readonly markdown: string | undefined;
  /** `-se FILE` */
  readonly sarif: string | undefined;
  /** `-je FILE` */
  readonly json: string | undefined;
}

/** A markdown export folder: `index.md` begun at once, a file per finding written as it comes. */
export class MarkdownFolder {
  private count = 0;

  private constructor(
    private readonly dir: string,
    private readonly flag: string,
  ) {}

  /** Makes the folder and writes the index's header; `flag` names what is wrong when it cannot. */
  static open(dir: string, flag: string): MarkdownFolder {
    attempt(flag, dir, () => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, MARKDOWN_INDEX), markdownIndexHeader());
    });
    return new MarkdownFolder(dir, flag);
  }

  add(event: ResultEvent): void {
    this.count += 1;
    const name = markdownFileName(event, this.count);
    attempt(this.flag, join(this.dir, name), () => {
      writeFileSync(join(this.dir, name), markdownFinding(event, TOOL));
      appendFileSync(join(this.dir, MARKDOWN_INDEX), markdownIndexRow(event, name));
    });
  }
}

/**
 * The exports of one scan. Markdown files are written as findings come (as nuclei writes them); the
 * SARIF and JSON files, each one document, when the scan ends, stopped or not. Every path is tried
 * before the first request, so a folder that cannot be written is a usage error, not a lost export.
 */
export class ScanExports {
  private readonly findings: ResultEvent[] = [];
  private markdown: MarkdownFolder | undefined;
  private failure: string | undefined;
  private closed = false;

  constructor(
    private readonly paths: ExportPaths,
    private readonly cwd: string,
  ) {}

  get any(): boolean {
    const { markdown, sarif, json } = this.paths;
    return markdown !== undefined || sarif !== undefined || json !== undefined;
  }

  open(): void {
    const { markdown, sarif, json } = this.paths;
    if (markdown !== undefined) this.markdown = MarkdownFolder.open(resolve(this.cwd, markdown), '-me');
    if (sarif !== undefined) writeDocument(resolve(this.cwd, sarif), '-se', sarifExport([], TOOL));
    if (json !== undefined) writeDocument(resolve(this.cwd, json), '-je', jsonExport([]));
  }

  event(event: ResultEvent): void {
    if (!event['matcher-status'] || !this.any) return;
    if (this.paths.sarif !== undefined || this.paths.json !== undefined) this.findings.push(event);
    try {
      this.markdown?.add(event);
    } catch (error) {
      this.failure ??= `${messageOf(error)}; later findings are not in the markdown export`;
      this.markdown = undefined;
    }
  }

  /** Writes the SARIF and JSON files (once; later calls do nothing); the first write error, if any, as a message. */
  close(): string | undefined {
    if (this.closed) return this.failure;
    this.closed = true;
    const { sarif, json } = this.paths;
    try {
      if (sarif !== undefined)
        writeDocument(resolve(this.cwd, sarif), '-se', sarifExport(this.findings, TOOL));
      if (json !== undefined) writeDocument(resolve(this.cwd, json), '-je', jsonExport(this.findings));
    } catch (error) {
      this.failure ??= messageOf(error);
    }
    return this.failure;
  }
}

/** Writes a whole export file, making its folder first. */
export function writeDocument(path: string, flag: string, text: string): void {
  attempt(flag, path, () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  });
}

function attempt(flag: string, path: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    throw new UserError(`${flag} ${path}: cannot write the export (${reasonOf(error)})`);
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a part of its folder path is a file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? messageOf(error);
}
