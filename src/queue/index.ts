/**
 * Scaling out: a scan queued in PostgreSQL in chunks of targets (`keyhole scan --queue`), and the
 * workers that take the chunks, run them and record what they find (`keyhole worker`).
 */
export { enqueueScan, type QueuedScanInput } from './enqueue.js';
export { planChunks } from './plan.js';
export {
  runWorker,
  type WorkerLog,
  type WorkerOptions,
  type WorkerSummary,
} from './worker.js';
