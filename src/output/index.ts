/**
 * What a scan shows and writes: result events (nuclei's JSONL shape), console lines, the progress
 * bar, the end-of-scan summary, and the redaction of secrets in events.
 */
export { type ConsoleFormat, formatFinding, quoteForScreen } from './console.js';
export {
  type Classification,
  type EventInfo,
  isSeverity,
  type ResultEvent,
  SEVERITIES,
  type Severity,
} from './event.js';
export { ProgressBar, type ProgressFigures } from './progress.js';
export { redactEvent } from './redact.js';
export { serializeEvent } from './serialize.js';
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
