import { type HeaderList, headerValue } from '../http/index.js';
import { type Interceptor, isRaw } from './dispatch.js';
import { type Rejection, rejectionOf } from './rejection.js';

/**
 * Reads the answer to each request that went out with a credential header of `-H` as it was given
 * (a secret of the secret files that replaced it does not count), so that a token the target turns
 * away is as loud as a secret file's: `onAnswer` is told how the answer turned it away, if it did.
 * A `Cookie` given with `-H` counts when the request's cookies still hold it.
 */
export function watchingHeaders(
  credentials: HeaderList,
  onAnswer: (rejection: Rejection | undefined) => void,
): Interceptor {
  return (next) => (outgoing, options) => {
    const sending = next(outgoing, options);
    if (isRaw(outgoing) || !carries(outgoing.headers, credentials)) return sending;
    return sending.then((sent) => {
      onAnswer(rejectionOf(sent.response));
      return sent;
    });
  };
}

function carries(headers: HeaderList, credentials: HeaderList): boolean {
  return credentials.some(([name, value]) => headerValue(headers, name)?.includes(value) === true);
}
