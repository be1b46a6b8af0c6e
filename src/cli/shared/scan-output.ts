/**
 * What `keyhole scan` prints and writes. stdout: findings only (console lines, or JSONL with `-j`
 * and no `-o`), so it can be piped. `-o FILE`: the same findings (JSONL with `-j`, else console
 * lines without colour), written as found. stderr: notices, errors, the progress bar (on a terminal)
 * and the summary; with `-silent`, nothing but fatal errors.
 */

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pc from 'picocolors';
import { type ResultEvent, serializeEvent } from '../../event/index.js';
import {
  formatFinding,
  formatSummary,
  formatTruncatedBodies,
  ProgressBar,
  type ProgressFigures,
  type ScanSummary,
} from '../../output/index.js';
import type { ScanProblem } from '../../scan/index.js';
import type { Dumped, SkippedHost } from '../../send/index.js';
import { printable, printableLines } from '../../source/index.js';
import { UserError } from '../exit.js';
import { type CliIo, colourFor } from '../io.js';
import { messageOf } from './errors.js';

export interface OutputSettings {
  readonly jsonl: boolean;
  readonly silent: boolean;
  readonly matcherStatus: boolean;
  readonly output: string | undefined;
  /** False with `-nc`: no colours even on a terminal. */
  readonly colour?: boolean;
}

export class ScanOutput {
  private file: FileSink | undefined;
  private progress: ProgressBar | undefined;
  private readonly colourOut: boolean;
  private readonly colourErr: boolean;
  private readonly refusals = new Set<string>();
  private readonly unresolvedShown = new Set<string>();

  constructor(
    private readonly io: CliIo,
    private readonly settings: OutputSettings,
  ) {
    this.colourOut = settings.colour !== false && colourFor(io, io.stdout);
    this.colourErr = settings.colour !== false && colourFor(io, io.stderr);
  }

  /** Opens the `-o` file (truncating it): once the configuration is known to be good. */
  openFile(): void {
    if (this.settings.output !== undefined)
      this.file = FileSink.open(resolve(this.io.cwd, this.settings.output));
  }

  /** A result event, already redacted. */
  event(event: ResultEvent): void {
    const { jsonl, matcherStatus } = this.settings;
    const json = jsonl ? `${serializeEvent(event)}\n` : undefined;
    const stdoutLine =
      json !== undefined && this.file === undefined
        ? json
        : `${formatFinding(event, { colour: this.colourOut, matcherStatus })}\n`;
    this.above(() => this.io.stdout.write(stdoutLine));
    this.file?.write(json ?? `${formatFinding(event, { colour: false, matcherStatus })}\n`);
  }

  info(text: string): void {
    this.notice(pc.createColors(this.colourErr).blue('[INF]'), text);
  }

  warn(text: string): void {
    this.notice(pc.createColors(this.colourErr).yellow('[WRN]'), text);
  }

  error(text: string): void {
    this.notice(pc.createColors(this.colourErr).red('[ERR]'), text);
  }

  /** A warning shown even with `-silent`: the scan may not have been what it was asked to be. */
  caution(text: string): void {
    this.above(() => this.io.stderr.write(`${pc.createColors(this.colourErr).yellow('[WRN]')} ${text}\n`));
  }

  /** An error shown even with `-silent`: the scan goes on, but not as it was asked to (a failed login). */
  alert(text: string): void {
    this.above(() => this.io.stderr.write(`${pc.createColors(this.colourErr).red('[ERR]')} ${text}\n`));
  }

  /** Shown even with `-silent`: the scan cannot go on. */
  fatal(text: string): void {
    this.above(() => this.io.stderr.write(`error: ${printable(text)}\n`));
  }

  problem(problem: ScanProblem): void {
    switch (problem.kind) {
      case 'request': {
        if (problem.failure === 'refused') {
          this.refused(problem);
          return;
        }
        const what = problem.failure === 'transport' ? problem.message : `${problem.url}: ${problem.message}`;
        this.error(`[${problem.templateId}] ${what}`);
        return;
      }
      case 'target':
        this.error(`target ${problem.target} skipped: ${problem.message}`);
        return;
      case 'unresolved':
        this.unresolved(problem);
        return;
      case 'flow':
        this.error(`[${problem.templateId}] ${problem.target}: flow: ${problem.message}`);
        return;
      case 'internal':
        this.error(`[${problem.templateId}] ${problem.target}: internal error: ${problem.message}`);
        return;
    }
  }

  /**
   * Requests not sent because a `{{…}}` could not be evaluated: one line per template and cause,
   * however many targets and requests it is; the summary counts them all.
   */
  private unresolved(problem: Extract<ScanProblem, { kind: 'unresolved' }>): void {
    const key = `${problem.templateId}\u0000${problem.message}`;
    if (this.unresolvedShown.has(key)) return;
    this.unresolvedShown.add(key);
    this.warn(`[${problem.templateId}] requests not sent: ${problem.message}`);
  }

  /**
   * A request not sent because its secret's login failed: the first of each reason is shown, the
   * rest are counted (the summary shows them per entry), so a failed login is not a flood of lines.
   */
  private refused(problem: Extract<ScanProblem, { kind: 'request' }>): void {
    if (this.refusals.has(problem.message)) return;
    this.refusals.add(problem.message);
    this.error(
      `[${problem.templateId}] ${problem.url}: not sent: ${problem.message} (further requests refused for this reason are counted, not shown)`,
    );
  }

  /**
   * `-v` and `-debug`: shown even with `-silent`, since they were asked for. A dump's CRLF line ends
   * are shown as line breaks, and any other control character a target sent as an escape.
   */
  dumped(dumped: Dumped): void {
    const label = pc.createColors(this.colourErr).gray;
    const text =
      dumped.kind === 'sent'
        ? `${label('[VER]')} sent a request to ${printable(dumped.url)}\n`
        : `${label('[DBG]')} ${dumped.kind === 'request' ? 'request to' : 'response from'} ${printable(dumped.url)}\n\n${printableLines(dumped.text.replaceAll('\r\n', '\n'))}\n\n`;
    this.above(() => this.io.stderr.write(text));
  }

  /** A host given up on (`-mhe`): said once; the requests it is then refused are counted, not shown. */
  hostSkipped(host: SkippedHost): void {
    const failures = host.errors === 1 ? 'a request failed' : `${host.errors} requests in a row failed`;
    this.warn(
      `${host.host} skipped for the rest of the scan: ${failures} (last: ${host.cause}); -mhe sets how many failures, -nmhe never skips`,
    );
  }

  /** Starts the progress bar when stderr is a terminal (and not `-silent`). */
  startProgress(figures: ProgressFigures): void {
    if (this.settings.silent || !this.io.stderr.isTTY) return;
    this.progress = new ProgressBar(this.io.stderr);
    this.progress.start(figures);
  }

  updateProgress(figures: ProgressFigures): void {
    this.progress?.update(figures);
  }

  stopProgress(): void {
    this.progress?.stop();
    this.progress = undefined;
  }

  /** The note, once per scan, of the responses matched on a body cut at its limit (see ScanStats). */
  truncatedBodies(counts: ReadonlyMap<number, number>): void {
    const note = formatTruncatedBodies(counts);
    if (note !== undefined) this.warn(note);
  }

  summary(summary: ScanSummary, recordedAt: string | undefined): void {
    if (this.settings.silent) return;
    this.io.stderr.write(formatSummary(summary));
    if (recordedAt !== undefined) this.io.stderr.write(`  ${'recorded'.padEnd(14)} ${recordedAt}\n`);
  }

  /** After Ctrl-C, the command that goes on with the recorded scan: shown even with `-silent`. */
  resumeHint(command: string): void {
    this.above(() => this.io.stderr.write(`to go on where it stopped: ${printable(command)}\n`));
  }

  /** Closes the output file (once; later calls do nothing); the first write error, if any, as a message. */
  close(): string | undefined {
    const file = this.file;
    this.file = undefined;
    return file?.close();
  }

  private notice(label: string, text: string): void {
    if (this.settings.silent) return;
    this.above(() => this.io.stderr.write(`${label} ${printable(text)}\n`));
  }

  private above(write: () => void): void {
    if (this.progress === undefined) write();
    else this.progress.above(write);
  }
}

/**
 * The `-o` file, written synchronously as findings arrive: nothing is held back in a buffer, so a
 * crash or a second Ctrl-C loses nothing that was reported. Findings are few next to requests.
 */
class FileSink {
  private failure: string | undefined;

  private constructor(
    private readonly path: string,
    private readonly fd: number,
  ) {}

  /** Opens `path` for writing, making its folder first when it does not exist yet. */
  static open(path: string): FileSink {
    try {
      mkdirSync(dirname(path), { recursive: true });
      return new FileSink(path, openSync(path, 'w'));
    } catch (error) {
      throw new UserError(`-o ${path}: cannot write the output file (${codeOf(error)})`);
    }
  }

  write(text: string): void {
    if (this.failure !== undefined) return;
    try {
      writeSync(this.fd, text);
    } catch (error) {
      this.failure = `writing ${this.path} failed (${codeOf(error)}); findings after this point are not in it`;
    }
  }

  close(): string | undefined {
    try {
      closeSync(this.fd);
    } catch (error) {
      this.failure ??= `closing ${this.path} failed (${codeOf(error)})`;
    }
    return this.failure;
  }
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its folder does not exist';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a part of its folder path is a file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? messageOf(error);
}
