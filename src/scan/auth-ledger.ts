import {
  entriesOf,
  entryOf,
  eventEntry,
  type LoginEvent,
  type ScopedSecret,
  type SecretEntry,
  type SecretSet,
} from '../secretfile/index.js';
import type { Rejection } from '../send/index.js';
import type { AuthenticationFigures } from '../store/index.js';

/** What one secret-file entry did in a scan. */
export interface EntryFigures {
  readonly entry: SecretEntry;
  /** Requests sent with its secret. */
  readonly requests: number;
  /** Requests in its scope not sent, because its login (or a static entry's secret check) failed. */
  readonly refused: number;
  /** Of its requests, those answered (not lost in transport), and how many the target refused. */
  readonly answered: number;
  readonly rejected: RejectionCounts;
  /**
   * Of its answers, those with status 403. Not a refusal (a working secret meets it too), but a
   * target that answers nothing else may be refusing the secret itself (see `forbiddenEverywhere` in scan.ts).
   */
  readonly forbidden: number;
  /** Logins run (re-logins included), and how many of them failed (with a static entry's failed secret checks). */
  readonly logins: number;
  readonly loginFailures: number;
  readonly relogins: number;
  /** Why its login or secret check failed (the last failure, when several did). */
  readonly failure?: string;
}

/** Responses by which the target turned away an entry's secret (see {@link Rejection}). */
export interface RejectionCounts {
  /** Answered 401. */
  readonly unauthorized: number;
  /** Redirected to a login page. */
  readonly loginPage: number;
}

/** What the credential headers of `-H` met: the answers to the requests that carried them. */
export interface HeaderFigures {
  /** `-H Authorization`, `-H Authorization, -H X-Api-Key`. */
  readonly label: string;
  readonly answered: number;
  readonly rejected: RejectionCounts;
}

/** How authenticated a scan was: what its summary and the store show. */
export interface AuthFigures {
  /** Requests the templates sent (redirect hops and resends after a re-login included). */
  readonly requests: number;
  /** Of those, the ones sent with a secret. */
  readonly authenticated: number;
  readonly entries: readonly EntryFigures[];
  /** With credential headers given with `-H`. */
  readonly headers?: HeaderFigures;
}

/** The figures as the store adds them to a scan's. */
export function storedFigures(figures: AuthFigures): AuthenticationFigures {
  return {
    unauthenticated: figures.requests - figures.authenticated,
    entries: figures.entries.map(
      ({ entry, failure: _, answered: __, forbidden: ___, rejected, ...counts }) => ({
        fingerprint: entry.fingerprint,
        label: entry.label,
        kind: entry.kind,
        types: entry.types,
        scope: entry.scope,
        ...counts,
        rejected: rejected.unauthorized + rejected.loginPage,
      }),
    ),
  };
}

/** What happened between two readings of one ledger (a worker's chunk). */
export function figuresSince(before: AuthFigures, after: AuthFigures): AuthFigures {
  const earlier = new Map(before.entries.map((e) => [e.entry, e]));
  return {
    requests: after.requests - before.requests,
    authenticated: after.authenticated - before.authenticated,
    ...(after.headers === undefined ? {} : { headers: headersSince(before.headers, after.headers) }),
    entries: after.entries.map((now) => {
      const then = earlier.get(now.entry);
      if (then === undefined) return now;
      const { failure: _, ...rest } = now;
      const failed = now.loginFailures > then.loginFailures;
      return {
        ...rest,
        requests: now.requests - then.requests,
        refused: now.refused - then.refused,
        logins: now.logins - then.logins,
        loginFailures: now.loginFailures - then.loginFailures,
        relogins: now.relogins - then.relogins,
        answered: now.answered - then.answered,
        forbidden: now.forbidden - then.forbidden,
        rejected: {
          unauthorized: now.rejected.unauthorized - then.rejected.unauthorized,
          loginPage: now.rejected.loginPage - then.rejected.loginPage,
        },
        ...(failed && now.failure !== undefined ? { failure: now.failure } : {}),
      };
    }),
  };
}

function headersSince(before: HeaderFigures | undefined, after: HeaderFigures): HeaderFigures {
  if (before === undefined) return after;
  return {
    label: after.label,
    answered: after.answered - before.answered,
    rejected: {
      unauthorized: after.rejected.unauthorized - before.rejected.unauthorized,
      loginPage: after.rejected.loginPage - before.rejected.loginPage,
    },
  };
}

type Counts = {
  -readonly [K in keyof Omit<EntryFigures, 'entry' | 'rejected'>]: EntryFigures[K];
} & { rejected: { -readonly [K in keyof RejectionCounts]: number } };

/**
 * Answers after which an entry whose every answer so far refused its secret is reported while the
 * scan goes on, so that a long scan is not run to its end on a secret the target does not take.
 */
export const EARLY_REJECTIONS = 10;

/**
 * Told, once per entry (and once for the credential headers of `-H`), that the target refused its
 * secret on each of its first answers; `label` is the entry's (`static[0] of s.yaml`) or `-H …`.
 */
export type RejectionListener = (label: string, rejected: RejectionCounts) => void;

type Answers = { answered: number; rejected: { -readonly [K in keyof RejectionCounts]: number } };

/**
 * Counts, for one scan, every request the templates send (with its secret or without one), every
 * request refused because its entry's login failed, every answer by which the target refused a
 * secret, and every login. Nothing here holds a value.
 */
export class AuthLedger {
  requests = 0;
  authenticated = 0;
  private readonly counts = new Map<SecretEntry, Counts>();
  private readonly reported = new Set<SecretEntry | Answers>();
  private readonly headers: (Answers & { readonly label: string }) | undefined;

  /** `headersLabel`: the credential headers of `-H`, when there are any (`-H Authorization`). */
  constructor(
    secrets: SecretSet | undefined,
    private readonly onRejected?: RejectionListener,
    headersLabel?: string,
  ) {
    for (const entry of secrets === undefined ? [] : entriesOf(secrets)) this.countsOf(entry);
    if (headersLabel !== undefined)
      this.headers = { label: headersLabel, answered: 0, rejected: { unauthorized: 0, loginPage: 0 } };
  }

  /** A request went out; `secret` is the one it carried. */
  sent(secret: ScopedSecret | undefined): void {
    this.requests++;
    if (secret === undefined) return;
    this.authenticated++;
    this.countsOf(entryOf(secret)).requests++;
  }

  /** The target answered a request that carried `secret` (the answer the template gets). */
  answered(secret: ScopedSecret, rejection: Rejection | undefined, status: number): void {
    const entry = entryOf(secret);
    const counts = this.countsOf(entry);
    if (status === 403) counts.forbidden++;
    this.count(entry, counts, entry.label, rejection);
  }

  /** The target answered a request that carried the credential headers of `-H` as given. */
  answeredWithHeaders(rejection: Rejection | undefined): void {
    const headers = this.headers;
    if (headers !== undefined) this.count(headers, headers, headers.label, rejection);
  }

  private count(key: SecretEntry | Answers, answers: Answers, label: string, rejection?: Rejection): void {
    answers.answered++;
    if (rejection === 'unauthorized') answers.rejected.unauthorized++;
    else if (rejection === 'login-page') answers.rejected.loginPage++;
    const { unauthorized, loginPage } = answers.rejected;
    if (answers.answered !== EARLY_REJECTIONS || unauthorized + loginPage !== answers.answered) return;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.onRejected?.(label, { ...answers.rejected });
  }

  /** A request was not sent: its entry's login failed. */
  refused(secret: ScopedSecret): void {
    this.countsOf(entryOf(secret)).refused++;
  }

  /**
   * A login, or a static entry's secret check: a failed check counts as a failed login (its
   * requests are refused the same way); a check is not a login.
   */
  login(event: LoginEvent): void {
    const counts = this.countsOf(eventEntry(event));
    if (event.kind === 'login') {
      counts.logins++;
      if (event.relogin) counts.relogins++;
    } else if (event.kind === 'login-failed' || event.kind === 'secret-check-failed') {
      counts.loginFailures++;
      counts.failure = event.reason;
    } else if (event.kind === 'session-lost') {
      counts.failure = event.reason;
    }
  }

  figures(): AuthFigures {
    const headers = this.headers;
    return {
      requests: this.requests,
      authenticated: this.authenticated,
      ...(headers === undefined
        ? {}
        : {
            headers: { label: headers.label, answered: headers.answered, rejected: { ...headers.rejected } },
          }),
      entries: [...this.counts].map(([entry, counts]) => ({
        entry,
        ...counts,
        rejected: { ...counts.rejected },
      })),
    };
  }

  private countsOf(entry: SecretEntry): Counts {
    let counts = this.counts.get(entry);
    if (counts === undefined) {
      counts = {
        requests: 0,
        refused: 0,
        answered: 0,
        forbidden: 0,
        rejected: { unauthorized: 0, loginPage: 0 },
        logins: 0,
        loginFailures: 0,
        relogins: 0,
      };
      this.counts.set(entry, counts);
    }
    return counts;
  }
}
