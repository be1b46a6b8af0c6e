/**
 * What a scan shows on a terminal: console lines of findings, the progress bar, `-stats` lines, the
 * end-of-scan summary. (The result events themselves are in event/.)
 */
export { formatFinding } from './console.js';
export { ProgressBar, type ProgressFigures } from './progress.js';
export { formatStatsJson, formatStatsLine, type StatsFigures } from './stats-lines.js';
export {
  type AuthSummary,
  formatElapsed,
  formatSummary,
  formatTruncatedBodies,
  type HeaderCredentials,
  type ScanSummary,
  type SkippedHosts,
} from './summary.js';
