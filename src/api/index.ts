export type { RateCounts } from './rate-counts.js';
export { type GivenBack, type Lease, type LeaseAsk, LeasedCounts, RateLeases } from './rate-leases.js';
export {
  type ScanRequestBody,
  ScanRequestError,
  type ScanStarter,
} from './routes/scan-requests.js';
export { buildApi, DEFAULT_RATE_LIMIT } from './server.js';
