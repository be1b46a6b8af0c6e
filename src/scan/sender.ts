import type { RequestSender } from '../engine/index.js';
import {
  AbortWatch,
  type HttpRequest,
  type RateLimiter,
  type RawHttpRequest,
  requestUrl,
  type SendOptions,
  TransportError,
} from '../http/index.js';

export interface SenderOptions {
  /** `-rl`: one token per request, shared by every request of the scan (logins and probes too). */
  readonly rate?: RateLimiter;
  /** Called as each request goes on the wire. */
  readonly onSend?: () => void;
}

/**
 * The scan's sender: every request of the scan (template requests, redirect hops, retries, logins,
 * scheme probes) waits for the rate limit, is counted, and is sent by `client`. A request still
 * waiting for its turn when the scan is stopped fails at once as aborted instead of waiting on.
 */
export function scanSender(client: RequestSender, options: SenderOptions): RequestSender {
  const { rate, onSend } = options;
  const go = (url: () => string, signal: AbortSignal | undefined): void => {
    if (signal?.aborted === true) throw new TransportError('aborted', url(), 'aborted: the scan was stopped');
    onSend?.();
  };
  const turn = async (url: () => string, signal: AbortSignal | undefined): Promise<void> => {
    if (rate !== undefined) await untilAborted(rate.take(), signal, url);
    go(url, signal);
  };
  return {
    send(request: HttpRequest, sendOptions?: SendOptions) {
      if (rate !== undefined) {
        return turn(() => requestUrl(request), sendOptions?.signal).then(() =>
          client.send(request, sendOptions),
        );
      }
      // Without a rate limit nothing is waited for: no extra turn of the promise queue per request.
      if (sendOptions?.signal?.aborted === true) {
        return Promise.reject(
          new TransportError('aborted', requestUrl(request), 'aborted: the scan was stopped'),
        );
      }
      onSend?.();
      return client.send(request, sendOptions);
    },
    async sendRaw(request: RawHttpRequest, sendOptions?: SendOptions) {
      await turn(() => `${request.scheme}://${request.hostname}:${request.port}`, sendOptions?.signal);
      return client.sendRaw(request, sendOptions);
    },
  };
}

function untilAborted(
  wait: Promise<void>,
  signal: AbortSignal | undefined,
  url: () => string,
): Promise<void> {
  if (signal === undefined) return wait;
  if (signal.aborted)
    return Promise.reject(new TransportError('aborted', url(), 'aborted: the scan was stopped'));
  return new Promise<void>((resolve, reject) => {
    const entry = AbortWatch.add(signal, () =>
      reject(new TransportError('aborted', url(), 'aborted: the scan was stopped')),
    );
    wait.then(
      () => {
        AbortWatch.remove(signal, entry);
        resolve();
      },
      (error: unknown) => {
        AbortWatch.remove(signal, entry);
        reject(error);
      },
    );
  });
}
