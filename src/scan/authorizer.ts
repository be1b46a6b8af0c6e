import type { RequestAuthorizer } from '../engine/index.js';
import type { HttpResponse } from '../http/index.js';
import type { Applied, DynamicSecret, ScopedSecret, SecretResolver } from '../secretfile/index.js';
import type { AuthLedger } from './auth-ledger.js';

/** Which secret a request was sent with: handed back with its response. */
interface Grant {
  readonly entry: ScopedSecret;
  readonly generation: number;
}

/**
 * The scan's authorizer: every request and every redirect hop gets the secret its own destination
 * matches (none for a host no entry matches; refused when the matching entry's login failed). After
 * a response that shows a dynamic entry's session was lost (its `reauth:` status codes or logged-out
 * pattern), the entry logs in again (one login however many responses show it) and the request is
 * sent once more with the new session. Every decision is counted on `ledger`: a request sent with
 * its secret or without one, or refused.
 */
export function sessionAuthorizer(resolver: SecretResolver, ledger: AuthLedger): RequestAuthorizer {
  const decide = <R>(applied: Applied<R>) => decision(applied, ledger);
  const unscoped = unscopedAuthorizer(ledger);
  return {
    authorize(request) {
      // Static secrets and live sessions are applied at once: no promise per request.
      const applied = resolver.applyNow(request);
      return applied instanceof Promise ? applied.then(decide) : decide(applied);
    },
    async authorizeRaw(text, destination) {
      return decide(await resolver.applyRaw(text, destination));
    },
    unscoped: () => unscoped,
    afterResponse({ response, grant }) {
      const entry = loggedOutEntry(resolver, grant, response);
      // Nearly every response: answered at once.
      if (entry === undefined) return 'keep';
      return resolver
        .relogin(entry, (grant as Grant).generation)
        .then((relogin) => (relogin.ok ? 'retry' : 'keep'));
    },
  };
}

/** For blocks with `skip-secret-file: true`: every request goes as built, and is counted as such. */
function unscopedAuthorizer(ledger: AuthLedger): RequestAuthorizer {
  return {
    authorize(request) {
      ledger.sent(undefined);
      return { kind: 'send', request };
    },
    async authorizeRaw(text) {
      ledger.sent(undefined);
      return { kind: 'send', request: text };
    },
  };
}

function decision<R>(applied: Applied<R>, ledger: AuthLedger) {
  switch (applied.kind) {
    case 'none':
      ledger.sent(undefined);
      return { kind: 'send', request: applied.request } as const;
    case 'error':
      ledger.refused(applied.entry);
      return { kind: 'refuse', reason: applied.reason } as const;
    case 'applied':
      ledger.sent(applied.entry);
      return {
        kind: 'send',
        request: applied.request,
        grant: { entry: applied.entry, generation: applied.generation } satisfies Grant,
      } as const;
  }
}

function loggedOutEntry(
  resolver: SecretResolver,
  grant: unknown,
  response: HttpResponse,
): DynamicSecret | undefined {
  if (!isGrant(grant) || grant.entry.kind !== 'dynamic') return undefined;
  const reauth = grant.entry.login.reauth;
  if (reauth === undefined) return undefined;
  // The response text is only built when a logged-out pattern needs it.
  const text = reauth.loggedOutRegex === undefined ? '' : responseText(response);
  return resolver.signalsLoggedOut(grant.entry, { status: response.statusCode, text })
    ? grant.entry
    : undefined;
}

function isGrant(value: unknown): value is Grant {
  return typeof value === 'object' && value !== null && 'entry' in value && 'generation' in value;
}

function responseText(response: HttpResponse): string {
  return `${response.rawHead}${response.body.toString('utf8')}`;
}
