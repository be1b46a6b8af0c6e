/**
 * Scaling out: a scan queued in PostgreSQL in chunks of targets (`keyhole scan --queue`), and the
 * workers that take the chunks, run them and record what they find (`keyhole worker`).
 */
export { enqueueScan } from './enqueue.js';
export { runWorker, type WorkerSummary } from './worker.js';
