import { dumpRawRequest, dumpRequest, dumpResponse } from '../http/index.js';
import { type Interceptor, isRaw } from './dispatch.js';
import { urlOf } from './wire.js';

/** What `-debug`, `-debug-req` and `-debug-resp` show of one request on the wire. */
export type Dumped =
  | { readonly kind: 'sent'; readonly url: string }
  | { readonly kind: 'request'; readonly url: string; readonly text: string }
  | { readonly kind: 'response'; readonly url: string; readonly text: string };

export interface DumpSettings {
  /** `-v`: a line per request. */
  readonly lines: boolean;
  readonly requests: boolean;
  readonly responses: boolean;
}

/**
 * Shows each request as it goes on the wire (its secret applied, every redirect hop, resend, login
 * and probe apart) and each response as it arrived, as nuclei's `-debug` does; `show` redacts.
 */
export function dumping(settings: DumpSettings, show: (dumped: Dumped) => void): Interceptor | undefined {
  if (!settings.lines && !settings.requests && !settings.responses) return undefined;
  return (next) => (outgoing, options) => {
    const url = urlOf(outgoing);
    if (settings.lines) show({ kind: 'sent', url });
    if (settings.requests) {
      const text = isRaw(outgoing) ? dumpRawRequest(outgoing.bytes) : dumpRequest(outgoing);
      show({ kind: 'request', url, text });
    }
    const sending = next(outgoing, options);
    if (!settings.responses) return sending;
    return sending.then((sent) => {
      show({ kind: 'response', url, text: dumpResponse(sent.response) });
      return sent;
    });
  };
}
