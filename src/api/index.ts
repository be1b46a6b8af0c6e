export { type RateCount, type RateCounts, WindowCounts } from './rate-counts.js';
export {
  type GivenBack,
  LEASE_MS,
  type Lease,
  type LeaseAsk,
  LeasedCounts,
  type LeaseKeeper,
  RateLeases,
} from './rate-leases.js';
export {
  type ScanRequestBody,
  ScanRequestError,
  type ScanStarter,
} from './routes/scan-requests.js';
export { buildApi, DEFAULT_RATE_LIMIT } from './server.js';
