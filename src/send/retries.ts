import { TransportError } from '../http/index.js';
import type { Dispatch, DispatchOptions, Interceptor, Outgoing, Sent } from './dispatch.js';

/** Failures worth sending again: the request may not have reached the server, or its answer was lost. */
const RETRIED = new Set(['connect', 'connection-lost', 'timeout']);

/**
 * `-retries`: a request that failed in transport is sent again, up to `times` more times, unless
 * the scan was stopped or the exchange's time budget is spent. Each try is a request of its own
 * further down the chain (its own rate token, counted on the wire).
 */
export function retrying(times: number): Interceptor | undefined {
  if (times <= 0) return undefined;
  return (next) => (outgoing, options) => attempt(next, outgoing, options, times);
}

function attempt(next: Dispatch, outgoing: Outgoing, options: DispatchOptions, left: number): Promise<Sent> {
  return next(outgoing, options).catch((error: unknown) => {
    const again =
      left > 0 &&
      error instanceof TransportError &&
      RETRIED.has(error.kind) &&
      options.signal?.aborted !== true &&
      options.budget?.exhausted !== true;
    if (!again) throw error;
    return attempt(next, outgoing, options, left - 1);
  });
}
