import type { HttpResponse, RawHttpRequest } from '../http/index.js';
import type { Applied, DynamicSecret, ScopedSecret, SecretResolver } from '../secretfile/index.js';
import {
  type DispatchOptions,
  type Interceptor,
  isRaw,
  type Outgoing,
  Refused,
  type Sent,
} from './dispatch.js';
import { type Rejection, rejectionOf } from './rejection.js';
import { urlOf } from './wire.js';

/**
 * Told of every decision — a request sent with the secret (or none), or refused — and of the answer
 * to each request that carried a secret: the one its sender gets, after any re-login and resend.
 */
export interface SecretObserver {
  sent(secret: ScopedSecret | undefined): void;
  refused(secret: ScopedSecret): void;
  /** `rejection`: how the answer turned the secret away, if it did; `status`: the answer's status. */
  answered(secret: ScopedSecret, rejection: Rejection | undefined, status: number): void;
}

/**
 * The secret of each request's own destination, decided for every request that goes through —
 * every redirect hop and every resend is one, so a hop to another host never carries the previous
 * host's secret — and applied (headers, cookies, query; the text of an `unsafe` request). A request
 * whose entry's login failed is refused, never sent without it. When a response shows that a
 * dynamic entry's session was lost (its `reauth:` statuses or logged-out pattern), the entry logs in
 * again — one login however many responses show it — and the request is sent once more with the new
 * session.
 */
export function withSecrets(resolver: SecretResolver, observer?: SecretObserver): Interceptor {
  return (next) => {
    const send = (outgoing: Outgoing, options: DispatchOptions, resent: boolean): Promise<Sent> => {
      if (isRaw(outgoing)) return sendRaw(outgoing, options, resent);
      // Static secrets and live sessions are known at once: no promise of ours per request.
      const applied = resolver.applyNow(outgoing);
      return applied instanceof Promise
        ? applied.then((known) => decided(known, outgoing, options, resent))
        : decided(applied, outgoing, options, resent);
    };
    const sendRaw = async (request: RawHttpRequest, options: DispatchOptions, resent: boolean) => {
      const applied = await resolver.applyRaw(textOf(request), request);
      const edited: Applied<Outgoing> =
        applied.kind === 'error' ? applied : { ...applied, request: { ...request, bytes: applied.request } };
      return decided(edited, request, options, resent);
    };
    const decided = (
      applied: Applied<Outgoing>,
      original: Outgoing,
      options: DispatchOptions,
      resent: boolean,
    ): Promise<Sent> => {
      if (applied.kind === 'error') {
        observer?.refused(applied.entry);
        return Promise.reject(new Refused(urlOf(original), applied.reason));
      }
      observer?.sent(applied.kind === 'applied' ? applied.entry : undefined);
      const sending = next(applied.request, options);
      if (applied.kind !== 'applied') return sending;
      const { entry } = applied;
      const answer = (sent: Sent): Sent => {
        const rejection = rejectionOf(sent.response);
        observer?.answered(entry, rejection, sent.response.statusCode);
        return rejection === undefined ? sent : { ...sent, rejected: { secret: entry, rejection } };
      };
      if (resent || !canReauth(entry)) return sending.then(answer);
      const { generation } = applied;
      return sending.then((sent) => {
        if (!resolver.signalsLoggedOut(entry, responseFacts(entry, sent.response))) return answer(sent);
        // The resend is answered on its own; this answer is not the one the sender gets.
        return resolver
          .relogin(entry, generation)
          .then((relogin) => (relogin.ok ? send(original, options, true) : answer(sent)));
      });
    };
    return (outgoing, options) => {
      if (options.withoutSecrets !== true) return send(outgoing, options, false);
      observer?.sent(undefined);
      return next(outgoing, options);
    };
  };
}

function textOf(request: RawHttpRequest): string {
  return typeof request.bytes === 'string' ? request.bytes : Buffer.from(request.bytes).toString('latin1');
}

function canReauth(entry: ScopedSecret): entry is DynamicSecret {
  return entry.kind === 'dynamic' && entry.login.reauth !== undefined;
}

/** What `reauth:` looks at; the text is only made when a logged-out pattern needs it. */
function responseFacts(entry: DynamicSecret, response: HttpResponse): { status: number; text: string } {
  const text =
    entry.login.reauth?.loggedOutRegex === undefined
      ? ''
      : `${response.rawHead}${response.body.toString('utf8')}`;
  return { status: response.statusCode, text };
}
