/**
 * Scanning: templates × targets with the secrets of the secret files applied, a bound on runs in
 * flight, a global rate limit, redaction of everything shown or stored, and a recorder told about
 * the scan's life. The command line (`keyhole scan`) builds on this; so can a worker.
 */

export {
  type AuthFigures,
  type EntryFigures,
  figuresSince,
  storedFigures,
} from './auth-ledger.js';
export { BulkQueue } from './bulk-queue.js';
export { CompiledTemplates, type PlanTemplate } from './compiled-templates.js';
export { type OastPlan, type OastTiming, OastUnavailable, PUBLIC_OAST_SERVERS } from './oast.js';
export { noRecorder, type ScanRecorder, type ScanTemplateRef } from './recorder.js';
export {
  doneRuns,
  plannedRuns,
  runKey,
  runScan,
  type ScanPlan,
  type ScanProblem,
  type ScanRun,
  type TemplateRunOptions,
} from './run-scan.js';
export {
  authenticationFailure,
  executeScan,
  forbiddenEverywhere,
  forbiddenWarning,
  rejectionCauses,
} from './scan.js';
export {
  PrefetchFailed,
  plannedEntries,
  prefetchedWork,
  type ScanSession,
  type SessionListener,
  type SessionSettings,
  withScanSession,
} from './session.js';
export { ScanStats } from './stats.js';
export { StoreRecorder } from './store-recorder.js';
export type { TargetResolution } from './target.js';
export { FindingBatches, SerialWrites } from './writes.js';
