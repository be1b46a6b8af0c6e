import type { ResultEvent } from '../event/index.js';
import type { AuthFigures } from './auth-ledger.js';
import type { ScanRun } from './run-scan.js';

/** What a scan is, as it starts. */
export interface ScanStart {
  readonly name: string;
  readonly targets: readonly string[];
  readonly templates: readonly ScanTemplateRef[];
  /** Asset lists the targets came from (`--asset`). */
  readonly assetIds: readonly string[];
  /** Template runs planned (templates × targets, self-contained templates once). */
  readonly totalRuns: number;
  /** The scan this one re-runs (`--rescan`). */
  readonly rescanOf?: string | undefined;
}

export interface ScanTemplateRef {
  readonly id: string;
  readonly path: string;
  /** The template's text, kept so the finding can be retested later. */
  readonly content?: string;
}

export interface ScanProgress {
  readonly runsDone: number;
  readonly runsTotal: number;
  /** 0–100. */
  readonly percent: number;
}

/**
 * Where a scan reports its life: start, progress, each finding as it is found, and its end. The
 * scan never waits on `progress` or `finding` (an implementation queues and throttles them);
 * `finish` and `fail` resolve once everything reported before them is recorded, and reject when
 * something could not be recorded.
 */
export interface ScanRecorder {
  start(scan: ScanStart): Promise<void>;
  progress(progress: ScanProgress): void;
  /** A matched result (`matcher-status: true`), redacted unless the user asked otherwise. */
  finding(event: ResultEvent): void;
  /** A template run finished, after its findings were reported: `-resume` does not make it again. */
  runDone(run: ScanRun): void;
  /** How authenticated the scan was (with secret files), told once before it ends. */
  authentication(figures: AuthFigures): void;
  finish(): Promise<void>;
  fail(reason: string): Promise<void>;
  /** Where the scan is recorded (e.g. `scan c0ffee… in .keyhole/keyhole.db`), once started. */
  readonly location?: string | undefined;
}

/** Records nothing (`--no-store`). */
export const noRecorder: ScanRecorder = {
  start: async () => {},
  progress: () => {},
  finding: () => {},
  runDone: () => {},
  authentication: () => {},
  finish: async () => {},
  fail: async () => {},
};
