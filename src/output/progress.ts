import { SingleBar } from 'cli-progress';
import type { TextSink } from './sink.js';

/** What the progress line shows. */
export interface ProgressFigures {
  /** Template runs finished (one template against one target). */
  readonly done: number;
  readonly total: number;
  readonly requests: number;
  readonly findings: number;
  readonly errors: number;
  readonly elapsedMs: number;
}

const FORMAT =
  '{bar} {value}/{total} templates | {rate} req/s | {findings} findings | {errors} errors | {duration_formatted}';

/**
 * The progress bar of a scan, on a terminal only (callers create it only when the stream is one). It
 * redraws itself a few times a second; lines written to the same terminal go through `above`, so
 * they appear above the bar instead of through it.
 */
export class ProgressBar {
  private readonly bar: SingleBar;
  private active = false;

  constructor(private readonly stream: TextSink) {
    this.bar = new SingleBar({
      stream: stream as unknown as NodeJS.WritableStream,
      format: FORMAT,
      hideCursor: true,
      clearOnComplete: true,
      // The line is cleared whenever other output is written: always redraw on the next tick.
      forceRedraw: true,
      barsize: 24,
      fps: 5,
    });
  }

  start(figures: ProgressFigures): void {
    this.bar.start(figures.total, figures.done, payload(figures));
    this.active = true;
  }

  update(figures: ProgressFigures): void {
    if (!this.active) return;
    this.bar.setTotal(figures.total);
    this.bar.update(figures.done, payload(figures));
  }

  /** Runs `write` (which prints whole lines) with the bar moved out of the way. */
  above(write: () => void): void {
    if (!this.active) {
      write();
      return;
    }
    this.stream.write('\r\x1b[2K');
    write();
    this.bar.render();
  }

  stop(): void {
    if (!this.active) return;
    this.active = false;
    this.bar.stop();
  }
}

function payload(figures: ProgressFigures): Record<string, string | number> {
  const seconds = figures.elapsedMs / 1000;
  return {
    rate: seconds > 0 ? Math.round(figures.requests / seconds) : 0,
    findings: figures.findings,
    errors: figures.errors,
  };
}
