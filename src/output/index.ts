/**
 * What a scan shows on a terminal: console lines of findings, the progress bar, the end-of-scan
 * summary. (The result events themselves are in event/.)
 */
export { type ConsoleFormat, formatFinding, quoteForScreen } from './console.js';
export { ProgressBar, type ProgressFigures } from './progress.js';
export type { TextSink } from './sink.js';
export {
  type AuthSummary,
  type EntrySummary,
  formatElapsed,
  formatFindings,
  formatSummary,
  formatTruncatedBodies,
  type ScanSummary,
} from './summary.js';
