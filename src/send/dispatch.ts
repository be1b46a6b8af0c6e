/**
 * The request seam: every request the scanner sends — a template's, a redirect hop, a resend, a
 * login's, a scheme probe — goes through one `Dispatch`, a chain of small interceptors around the
 * HTTP client, as undici composes dispatchers. Each interceptor makes one decision (which secret,
 * whether to send again, when the next token is free, whether the scan was stopped) and passes the
 * request on with `next`, so each rule lives in one place, whoever sends.
 */
import type { HttpRequest, HttpResponse, RawHttpRequest, SendOptions } from '../http/index.js';
import type { ScopedSecret } from '../secretfile/index.js';
import type { Rejection } from './rejection.js';

/** A request on its way out: as a template built it, or an `unsafe` request's bytes. */
export type Outgoing = HttpRequest | RawHttpRequest;

export function isRaw(outgoing: Outgoing): outgoing is RawHttpRequest {
  return 'bytes' in outgoing;
}

/** A response, and the request as it went on the wire (its secret applied). */
export interface Sent {
  readonly request: Outgoing;
  readonly response: HttpResponse;
  /** The response turned away the secret the request carried (see `rejectionOf`). */
  readonly rejected?: { readonly secret: ScopedSecret; readonly rejection: Rejection };
}

/** How one request is sent: the transport's options and what interceptors read of the request. */
export interface DispatchOptions extends SendOptions {
  /** `skip-secret-file`: the request goes without a secret. */
  readonly withoutSecrets?: boolean;
}

export type Dispatch = (outgoing: Outgoing, options: DispatchOptions) => Promise<Sent>;

/** Wraps a dispatch: decides something about each request, and calls `next` (or not). */
export type Interceptor = (next: Dispatch) => Dispatch;

/** `base` behind `interceptors`, the first outermost; absent ones are left out. */
export function chain(base: Dispatch, interceptors: readonly (Interceptor | undefined)[]): Dispatch {
  let dispatch = base;
  for (let i = interceptors.length - 1; i >= 0; i--) {
    const interceptor = interceptors[i];
    if (interceptor !== undefined) dispatch = interceptor(dispatch);
  }
  return dispatch;
}

/** What sends requests at the end of the chain: the scan's `HttpClient`. */
export interface Transport {
  send(request: HttpRequest, options?: SendOptions): Promise<HttpResponse>;
  sendRaw(request: RawHttpRequest, options?: SendOptions): Promise<HttpResponse>;
}

/** The end of every chain: the request goes on the wire as it is. */
export function transportDispatch(transport: Transport): Dispatch {
  return (outgoing, options) =>
    (isRaw(outgoing) ? transport.sendRaw(outgoing, options) : transport.send(outgoing, options)).then(
      (response) => ({ request: outgoing, response }),
    );
}

/** The request was not sent: a rule of the seam refused it (its secret's login failed, a redirect left a login's scope). */
export class Refused extends Error {
  override readonly name = 'Refused';
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(reason);
  }
}
