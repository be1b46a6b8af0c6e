/**
 * Scaling out: a scan queued in PostgreSQL in chunks of targets (`keyhole scan --queue`), and the
 * workers that take the chunks, run them and record what they find (`keyhole worker`); and the
 * retests asked for through the API, run by the workers or, on SQLite, by `keyhole serve`.
 */
export { enqueueScan } from './enqueue.js';
export {
  RETEST_REQUEST_STALE_MS,
  type RetestRunnerOptions,
  runNextRetestRequest,
  runRetestRequests,
} from './retest-requests.js';
export { runWorker, type WorkerSummary } from './worker.js';
