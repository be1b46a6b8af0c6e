import { requestUrl, TransportError } from '../http/index.js';
import { type Interceptor, isRaw, type Outgoing } from './dispatch.js';

/**
 * The last step before the wire: a request of a stopped scan fails at once as aborted, every other
 * is counted as it goes out (redirect hops, resends, logins and probes each count).
 */
export function onTheWire(count: () => void): Interceptor {
  return (next) => (outgoing, options) => {
    if (options.signal?.aborted === true) return Promise.reject(stopped(outgoing));
    count();
    return next(outgoing, options);
  };
}

export function stopped(outgoing: Outgoing): TransportError {
  return new TransportError('aborted', urlOf(outgoing), 'aborted: the scan was stopped');
}

export function urlOf(outgoing: Outgoing): string {
  return isRaw(outgoing)
    ? `${outgoing.scheme}://${outgoing.hostname}:${outgoing.port}`
    : requestUrl(outgoing);
}
