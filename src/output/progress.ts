import { SingleBar } from 'cli-progress';
import type { TextSink } from './sink.js';

/** What the progress line shows. */
export interface ProgressFigures {
  /** Template runs finished (one template against one target). */
  readonly done: number;
  readonly total: number;
  /** Requests sent since the scan started. */
  readonly requests: number;
  readonly findings: number;
  readonly errors: number;
}

const FORMAT =
  '{bar} {value}/{total} runs | {rate} req/s | {findings} findings | {errors} errors | {duration_formatted}';

/** How far back the request rate looks: long enough to be steady, short enough to follow `-rl`. */
export const RATE_WINDOW_MS = 5000;

/**
 * Requests per second over the last {@link RATE_WINDOW_MS}, from the running request count: not
 * the average since the start (which hides a slowdown for minutes) nor the last instant's (which
 * jumps with every batch). The samples are kept only for the window, so memory stays flat.
 */
export class RequestRate {
  private readonly samples: { readonly at: number; readonly count: number }[] = [];

  constructor(
    private readonly now: () => number,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  /** Records the running count, and returns the rate over the window ending now. */
  sample(count: number): number {
    const at = this.now();
    this.samples.push({ at, count });
    // The newest sample at or before the window's start stays, as the window's starting point.
    while (this.samples.length > 1 && (this.samples[1]?.at ?? at) <= at - this.windowMs) this.samples.shift();
    const [first] = this.samples;
    if (first === undefined || at <= first.at) return 0;
    return ((count - first.count) * 1000) / (at - first.at);
  }
}

/**
 * The progress bar of a scan, on a terminal only (callers create it only when the stream is one). It
 * redraws itself a few times a second; lines written to the same terminal go through `above`, so
 * they appear above the bar instead of through it.
 */
export class ProgressBar {
  private readonly bar: SingleBar;
  private readonly rate: RequestRate;
  private active = false;

  constructor(
    private readonly stream: TextSink,
    now: () => number = Date.now,
  ) {
    this.rate = new RequestRate(now);
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
    this.bar.start(figures.total, figures.done, this.payload(figures));
    this.active = true;
  }

  update(figures: ProgressFigures): void {
    if (!this.active) return;
    this.bar.setTotal(figures.total);
    this.bar.update(figures.done, this.payload(figures));
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

  private payload(figures: ProgressFigures): Record<string, string | number> {
    return {
      rate: Math.round(this.rate.sample(figures.requests)),
      findings: figures.findings,
      errors: figures.errors,
    };
  }
}
