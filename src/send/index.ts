/**
 * The request seam: one chain of interceptors between what builds requests (templates, logins,
 * probes) and the HTTP client. `scan/` composes it once per session; the engine only sees a
 * `Dispatch`.
 */

export { type Dumped, type DumpSettings, dumping } from './debug.js';
export {
  chain,
  type Dispatch,
  type DispatchOptions,
  type Interceptor,
  isRaw,
  type Outgoing,
  Refused,
  type Sent,
  transportDispatch,
} from './dispatch.js';
export { watchingHeaders } from './header-credentials.js';
export { HostErrorBudget, HostSkipped, type SkippedHost } from './host-errors.js';
export { rateLimited } from './rate.js';
export { type Rejection, rejectionOf } from './rejection.js';
export { retrying } from './retries.js';
export { withSecrets } from './secrets.js';
export { onTheWire } from './wire.js';
