import { AbortWatch, type RateLimiter } from '../http/index.js';
import type { Interceptor } from './dispatch.js';
import { stopped } from './wire.js';

/**
 * `-rl`: every request on the wire takes one token of the scan's limiter first (a resend or a
 * redirect hop takes its own). A request still waiting when the scan is stopped fails at once.
 */
export function rateLimited(limiter: RateLimiter): Interceptor {
  return (next) => (outgoing, options) => {
    const signal = options.signal;
    const turn = limiter.take();
    if (signal === undefined) return turn.then(() => next(outgoing, options));
    if (signal.aborted) return Promise.reject(stopped(outgoing));
    return new Promise<void>((resolve, reject) => {
      const watch = AbortWatch.add(signal, () => reject(stopped(outgoing)));
      turn.then(
        () => {
          AbortWatch.remove(signal, watch);
          resolve();
        },
        (error: unknown) => {
          AbortWatch.remove(signal, watch);
          reject(error);
        },
      );
    }).then(() => next(outgoing, options));
  };
}
