import type { HttpRequest, Scheme } from '../http/index.js';
import { applyCredential, applyCredentialToRaw } from './apply.js';
import { buildCredential, fillPlaceholders, mapSecret } from './credential.js';
import { type MatchKey, matchKey } from './host.js';
import { SecretIndex } from './lookup.js';
import type {
  Credential,
  DynamicSecret,
  Login,
  ScopedSecret,
  SecretSet,
  SecretSpec,
  StaticSecret,
} from './model.js';
import { originLabel } from './model.js';
import { Redactor } from './redact.js';
import { type CheckResult, type SecretCheckEvent, SecretChecks } from './secret-checks.js';
import { checkSession, type SessionCheck } from './verify.js';

/** Runs a dynamic entry's login template and returns its named extractor values. */
export interface LoginRunner {
  login(login: Login, target: string, context: LoginContext): Promise<Record<string, string>>;
  /** Sends an entry's `verify:` request, its session or secret applied (nothing else added). */
  check?: SessionCheck;
}

export interface LoginContext {
  /**
   * The secrets a login's own requests get: the static entries only, chosen by the same rules.
   * A login request never gets a dynamic secret, so a login can never wait on itself (or on
   * another login that waits on it).
   */
  readonly secrets: SecretResolver;
}

/** Where a request goes. */
export interface Destination {
  readonly scheme: Scheme;
  readonly hostname: string;
  readonly port: number;
}

export type Resolution =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'secret';
      readonly entry: ScopedSecret;
      readonly credential: Credential;
      /** Which session of a dynamic entry this is (0 for static entries); give it back to `relogin`. */
      readonly generation: number;
    }
  /** The entry matches but its login failed: the request must not be sent. */
  | { readonly kind: 'error'; readonly entry: ScopedSecret; readonly reason: string };

export type Applied<R> =
  | { readonly kind: 'none'; readonly request: R }
  | {
      readonly kind: 'applied';
      readonly request: R;
      readonly entry: ScopedSecret;
      readonly generation: number;
    }
  | { readonly kind: 'error'; readonly entry: ScopedSecret; readonly reason: string };

export type LoginEvent =
  | { readonly kind: 'login'; readonly login: Login; readonly target: string; readonly relogin: boolean }
  | { readonly kind: 'login-ok'; readonly login: Login }
  | { readonly kind: 'login-failed'; readonly login: Login; readonly reason: string }
  /** A response showed the session lost once more after `reauth.max` re-logins: it is not renewed. */
  | { readonly kind: 'session-lost'; readonly login: Login; readonly reason: string }
  /** A static entry's `verify:`: a failed one refuses the entry's requests as a failed login does. */
  | SecretCheckEvent;

export interface ResolverOptions {
  readonly runner?: LoginRunner;
  readonly redactor?: Redactor;
  /** Told about each login and secret check, and its outcome (a failure once per run). */
  readonly onEvent?: (event: LoginEvent) => void;
  readonly now?: () => number;
}

type SessionResult =
  | { readonly ok: true; readonly credentials: ReadonlyMap<DynamicSecret, Credential> }
  | { readonly ok: false; readonly reason: string };

interface Session {
  generation: number;
  pending: Promise<SessionResult> | undefined;
  result: SessionResult | undefined;
  startedAt: number;
  target: string | undefined;
  relogins: number;
  /** The session was lost past `reauth.max` (told once). */
  lost: boolean;
  /** When its token runs out (see expiryOf); undefined: it does not say. */
  expiresAt: number | undefined;
  /** When its `verify:` request last passed. */
  checkedAt: number;
}

/**
 * Decides and applies the secret of each outgoing request. Static secrets apply at once, those with
 * a `verify:` once their check passed (see SecretChecks); a dynamic secret first needs its login,
 * which runs once (single-flight: concurrent requests wait for the one login), on first need or on
 * `prefetch()`. A failed login or check is remembered: every request in its scope resolves to an
 * error and must not be sent, never sent unauthenticated.
 */
export class SecretResolver {
  private readonly index: SecretIndex;
  private readonly sessions = new Map<Login, Session>();
  /** Shared with the login view: a login's request waits for the same check as the scan's. */
  private readonly checks: SecretChecks;
  readonly redactor: Redactor;
  private loginView: SecretResolver | undefined;
  private last: (Destination & LookedUp) | undefined;

  constructor(
    private readonly set: SecretSet,
    private readonly options: ResolverOptions = {},
    checks?: SecretChecks,
  ) {
    this.index = new SecretIndex(set.entries);
    this.redactor = options.redactor ?? new Redactor();
    this.checks =
      checks ??
      new SecretChecks({
        send: options.runner?.check,
        redactor: this.redactor,
        onEvent: options.onEvent,
        now: () => this.now(),
      });
  }

  /** The entry that applies to a destination, without logging in. */
  choose(destination: Destination): ScopedSecret | undefined {
    return this.lookup(destination).entry;
  }

  chooseKey(key: MatchKey): ScopedSecret | undefined {
    return this.index.lookup(key);
  }

  async resolve(destination: Destination): Promise<Resolution> {
    return this.resolveNow(destination);
  }

  /**
   * `resolve`, answered at once when nothing has to be waited for (no entry, a static entry, a
   * dynamic entry whose session is there): the scan asks this for every request it sends.
   */
  resolveNow(destination: Destination): Resolution | Promise<Resolution> {
    const { key, entry, fixed } = this.lookup(destination);
    if (fixed !== undefined) return fixed;
    if (entry === undefined) return NO_SECRET;
    if (entry.kind === 'static') return this.checkedResolution(entry);
    const session = this.session(entry.login);
    if (this.checkDue(entry.login, session)) this.recheck(entry.login, session);
    else if (this.expired(entry.login, session))
      this.start(entry.login, session, session.target ?? originOf(destination, key), true);
    else if (session.pending === undefined && session.result === undefined)
      this.start(entry.login, session, originOf(destination, key), false);
    const generation = session.generation;
    if (session.result !== undefined) return sessionResolution(entry, session.result, generation);
    const pending = session.pending;
    if (pending === undefined) return sessionResolution(entry, undefined, generation);
    return pending.then((result) => sessionResolution(entry, result, generation));
  }

  async apply(request: HttpRequest): Promise<Applied<HttpRequest>> {
    return this.applyNow(request);
  }

  /** `apply`, answered at once when the secret is known without waiting (see `resolveNow`). */
  applyNow(request: HttpRequest): Applied<HttpRequest> | Promise<Applied<HttpRequest>> {
    const resolution = this.resolveNow(request);
    return resolution instanceof Promise
      ? resolution.then((known) => appliedTo(request, known))
      : appliedTo(request, resolution);
  }

  /** For raw requests sent as written; an unparsable request line is an error, not a silent skip. */
  async applyRaw(raw: string, destination: Destination): Promise<Applied<string>> {
    const resolution = await this.resolve(destination);
    if (resolution.kind === 'none') return { kind: 'none', request: raw };
    if (resolution.kind === 'error') return resolution;
    const edited = applyCredentialToRaw(raw, resolution.credential);
    if (edited === undefined) {
      return {
        kind: 'error',
        entry: resolution.entry,
        reason: 'the raw request has no request line to apply the secret to',
      };
    }
    return { kind: 'applied', request: edited, entry: resolution.entry, generation: resolution.generation };
  }

  /**
   * Runs the given logins now (`-prefetch-secrets`), each against its `input` or else the target
   * given with it; returns the failures.
   */
  async prefetch(
    logins: readonly { readonly login: Login; readonly target: string }[],
  ): Promise<{ login: Login; reason: string }[]> {
    const failures: { login: Login; reason: string }[] = [];
    for (const { login, target } of logins) {
      const session = this.session(login);
      if (session.pending === undefined && session.result === undefined)
        this.start(login, session, target, false);
      const result = session.result ?? (await session.pending);
      if (result !== undefined && !result.ok) failures.push({ login, reason: result.reason });
    }
    return failures;
  }

  /**
   * Runs the `verify:` checks of the given static entries now (`-prefetch-secrets`); returns the
   * failures.
   */
  prefetchChecks(
    secrets: readonly StaticSecret[],
  ): Promise<{ readonly secret: StaticSecret; readonly reason: string }[]> {
    return this.checks.prefetch(secrets);
  }

  /**
   * Forgets failed logins and secret checks, so that the next request in their scope logs in or
   * checks again: for a process that serves many scans one after another (a worker), where a login
   * refused once may work later.
   */
  forgetFailedLogins(): void {
    for (const session of this.sessions.values()) {
      if (session.pending === undefined && session.result?.ok === false) session.result = undefined;
    }
    this.checks.forgetFailed();
  }

  /**
   * Logs in again after a response showed the session was lost (single-flight). `generation` is the
   * one the failing request used: if a newer session exists already, nothing is done but wait for
   * it. Past `reauth.max` re-logins the current session is kept and the answer is not ok, so the
   * request is not sent again for nothing.
   */
  async relogin(
    secret: DynamicSecret,
    generation?: number,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const login = secret.login;
    const session = this.session(login);
    const outdated = generation !== undefined && generation < session.generation;
    if (!outdated && session.pending === undefined) {
      const limit = login.reauth?.max ?? 0;
      if (session.relogins >= limit || session.target === undefined) return this.lost(login, session, limit);
      session.relogins++;
      this.start(login, session, session.target, true);
    }
    const result = session.result ?? (await session.pending);
    if (result === undefined) return { ok: false, reason: 'the login has not run yet' };
    return result.ok ? { ok: true } : { ok: false, reason: result.reason };
  }

  /** No new login after `reauth.max` of them: the session is kept, and that is said once. */
  private lost(login: Login, session: Session, limit: number): { ok: false; reason: string } {
    const reason = `the session was lost again after ${limit} re-login${limit === 1 ? '' : 's'} (reauth max: ${limit}); responses that show it lost are kept as they are`;
    if (!session.lost) {
      session.lost = true;
      this.options.onEvent?.({ kind: 'session-lost', login, reason });
    }
    return { ok: false, reason };
  }

  /** Whether a response means the session of a dynamic entry was lost (its `reauth:` settings). */
  signalsLoggedOut(
    entry: ScopedSecret,
    response: { readonly status: number; readonly text: string },
  ): boolean {
    if (entry.kind !== 'dynamic') return false;
    const reauth = entry.login.reauth;
    if (reauth === undefined) return false;
    return reauth.status.includes(response.status) || reauth.loggedOutRegex?.test(response.text) === true;
  }

  /** The view a login's own requests use: static entries only (see LoginContext). */
  forLogin(): SecretResolver {
    this.loginView ??= new SecretResolver(
      { entries: this.set.entries.filter((e) => e.kind === 'static'), logins: [] },
      { redactor: this.redactor },
      this.checks,
    );
    return this.loginView;
  }

  /**
   * The key and entry of a destination. The last answer is kept: a scan sends runs of requests to
   * one host, each asking for its secret, and the answer depends on scheme, host and port alone.
   */
  private lookup(destination: Destination): LookedUp {
    const last = this.last;
    if (
      last !== undefined &&
      last.port === destination.port &&
      last.hostname === destination.hostname &&
      last.scheme === destination.scheme
    ) {
      return last;
    }
    const key = matchKey(destination.scheme, destination.hostname, destination.port);
    const { scheme, hostname, port } = destination;
    const entry = this.index.lookup(key);
    this.last = { scheme, hostname, port, key, entry, fixed: fixedResolution(entry) };
    return this.last;
  }

  /** A static entry with `verify:`: its secret once the check passed; refused when it failed. */
  private checkedResolution(entry: StaticSecret): Resolution | Promise<Resolution> {
    const result = this.checks.result(entry);
    return result instanceof Promise
      ? result.then((known) => checkResolution(entry, known))
      : checkResolution(entry, result);
  }

  private session(login: Login): Session {
    let session = this.sessions.get(login);
    if (session === undefined) {
      session = {
        generation: 0,
        pending: undefined,
        result: undefined,
        startedAt: 0,
        target: undefined,
        relogins: 0,
        lost: false,
        expiresAt: undefined,
        checkedAt: 0,
      };
      this.sessions.set(login, session);
    }
    return session;
  }

  private expired(login: Login, session: Session): boolean {
    if (session.pending !== undefined || session.result?.ok !== true) return false;
    if (session.expiresAt !== undefined && this.now() >= session.expiresAt) return true;
    const every = login.reauth?.everyMs;
    return every !== undefined && this.now() - session.startedAt >= every;
  }

  private checkDue(login: Login, session: Session): boolean {
    const every = login.verify?.everyMs;
    if (every === undefined || session.pending !== undefined || session.result?.ok !== true) return false;
    return this.now() - session.checkedAt >= every;
  }

  /** Runs the `verify:` request of a live session; logs in again when it fails (single-flight). */
  private recheck(login: Login, session: Session): void {
    const current = session.result;
    const target = session.target;
    if (current === undefined || !current.ok || target === undefined) return;
    session.checkedAt = this.now();
    session.result = undefined;
    const pending: Promise<SessionResult> = this.check(login, current.credentials).then((problem) => {
      if (session.pending !== pending) return session.pending ?? session.result ?? Promise.resolve(current);
      session.pending = undefined;
      if (problem === undefined) {
        session.result = current;
        return current;
      }
      this.start(login, session, target, true);
      return session.pending ?? current;
    });
    session.pending = pending;
  }

  private check(
    login: Login,
    credentials: ReadonlyMap<DynamicSecret, Credential>,
  ): Promise<string | undefined> {
    const send = this.options.runner?.check;
    if (send === undefined) return Promise.resolve('no session check runner is configured');
    return checkSession(login, credentials, send).then((problem) =>
      problem === undefined ? undefined : this.redactor.redact(problem),
    );
  }

  private start(login: Login, session: Session, fallbackTarget: string, relogin: boolean): void {
    const target = login.input ?? fallbackTarget;
    session.target = target;
    session.startedAt = this.now();
    session.generation++;
    // The old session is no longer trusted: requests from now on wait for the new one.
    session.result = undefined;
    this.options.onEvent?.({ kind: 'login', login, target, relogin });
    session.expiresAt = undefined;
    const startedAt = session.startedAt;
    session.pending = this.runLogin(login, target, (values) => {
      session.expiresAt = expiryOf(values, startedAt);
    }).then((result) => {
      session.checkedAt = this.now();
      session.result = result;
      session.pending = undefined;
      this.options.onEvent?.(
        result.ok ? { kind: 'login-ok', login } : { kind: 'login-failed', login, reason: result.reason },
      );
      return result;
    });
  }

  /** The session values of a login, or why there are none (said without naming the entry). */
  private async runLogin(
    login: Login,
    target: string,
    onValues: (values: Record<string, string>) => void,
  ): Promise<SessionResult> {
    const runner = this.options.runner;
    if (runner === undefined) return { ok: false, reason: 'no login runner is configured' };
    let values: Record<string, string>;
    try {
      values = await runner.login(login, target, { secrets: this.forLogin() });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: this.redactor.redact(message) };
    }
    for (const [name, value] of Object.entries(values))
      if (isSecretValue(login, name, value)) this.redactor.register(value);
    onValues(values);
    const filled = this.fill(login, values);
    if (!filled.ok || login.verify === undefined) return filled;
    const problem = await this.check(login, filled.credentials);
    return problem === undefined ? filled : { ok: false, reason: problem };
  }

  private fill(login: Login, values: Record<string, string>): SessionResult {
    const map = new Map(Object.entries(values).filter(([, v]) => v !== ''));
    const missing = login.placeholders.filter((name) => !map.has(name));
    if (missing.length > 0) {
      const got = map.size === 0 ? 'it gave no values' : `it gave: ${[...map.keys()].join(', ')}`;
      const names = missing.map((n) => `{{${n}}}`).join(', ');
      return { ok: false, reason: `the login gave no value for ${names}; ${got}` };
    }
    const credentials = new Map<DynamicSecret, Credential>();
    for (const secret of login.secrets) {
      const problems: string[] = [];
      const filled = withEveryCookie(
        mapSecret(secret.spec, (text) => fillPlaceholders(text, map)),
        map,
      );
      const credential = buildCredential(filled, {
        text: (t) => t,
        report: (_, message) => problems.push(message),
      });
      if (credential === undefined) {
        const reason = `its session values do not make ${originLabel(secret.origin)}: ${problems.join('; ')}`;
        return { ok: false, reason: this.redactor.redact(reason) };
      }
      this.redactor.registerCredential(credential);
      credentials.set(secret, credential);
    }
    return { ok: true, credentials };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/**
 * Which session values are masked wherever they appear: all a login template extracted; of a form,
 * browser or OAuth 2.0 login, its cookies and tokens (not `token_type: Bearer` or `expires_in:
 * 3600`, which would mask every such word); of a page's storage, what is named like a credential or
 * looks like a token (not a `theme: dark`). What a secret sends is masked in any case.
 */
function isSecretValue(login: Login, name: string, value: string): boolean {
  if (login.method.kind === 'template' || name.startsWith('cookie.')) return true;
  const storage = /^(local|session)\.(.*)$/s.exec(name);
  if (storage !== null)
    return CREDENTIAL_NAME.test(storage[2] ?? '') || (value.length >= 16 && !/\s/.test(value));
  return name !== 'token_type' && /token|secret|session/i.test(name);
}

const CREDENTIAL_NAME = /token|secret|session|auth|jwt|key|sid|csrf|xsrf|pass|credential|bearer|cookie|user/i;

/** A cookie secret written without `cookies:` takes every cookie the login set (`cookie.NAME`). */
function withEveryCookie(spec: SecretSpec<string>, values: ReadonlyMap<string, string>): SecretSpec<string> {
  if (spec.type !== 'cookie' || spec.cookies.length > 0) return spec;
  const cookies = [...values]
    .filter(([name]) => name.startsWith('cookie.'))
    .map(([name, value]) => ({ kind: 'pair' as const, key: name.slice('cookie.'.length), value }));
  return { type: 'cookie', cookies };
}

/**
 * When a session's token runs out (an OAuth 2.0 `expires_in`, in seconds): a tenth of its life
 * before, at most a minute before, so that requests never go with a token about to expire.
 */
function expiryOf(values: Record<string, string>, startedAt: number): number | undefined {
  const seconds = Number(values.expires_in);
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const lifeMs = seconds * 1000;
  return startedAt + lifeMs - Math.min(lifeMs / 10, 60_000);
}

/** What a destination's lookup gives; `fixed`: its resolution, when it is the same for every request. */
interface LookedUp {
  readonly key: MatchKey;
  readonly entry: ScopedSecret | undefined;
  readonly fixed: Resolution | undefined;
}

/** No entry, or a static entry without `verify:`: known without waiting, whatever happens later. */
function fixedResolution(entry: ScopedSecret | undefined): Resolution | undefined {
  if (entry === undefined) return NO_SECRET;
  return entry.kind === 'static' && entry.verify === undefined ? staticResolution(entry) : undefined;
}

/** A static entry's resolution: the same for every request, made once. */
const staticResolutions = new WeakMap<StaticSecret, Resolution>();

function staticResolution(entry: StaticSecret): Resolution {
  let resolution = staticResolutions.get(entry);
  if (resolution === undefined) {
    resolution = { kind: 'secret', entry, credential: entry.credential, generation: 0 };
    staticResolutions.set(entry, resolution);
  }
  return resolution;
}

function checkResolution(entry: StaticSecret, result: CheckResult): Resolution {
  if (result.ok) return staticResolution(entry);
  return {
    kind: 'error',
    entry,
    reason: `${originLabel(entry.origin)} of ${entry.origin.file}: ${result.reason}`,
  };
}

/** `scheme://host[:port]` of a request: where a login without `input` runs. */
function originOf(destination: Destination, key: MatchKey): string {
  return `${destination.scheme}://${key.text}`;
}

const NO_SECRET: Resolution = { kind: 'none' };

function sessionResolution(
  entry: DynamicSecret,
  result: SessionResult | undefined,
  generation: number,
): Resolution {
  if (result === undefined || !result.ok) {
    const where = `${originLabel(entry.login.origin)} of ${entry.login.origin.file}`;
    const reason = `the login of ${where} ${result === undefined ? 'did not run' : `failed: ${result.reason}`}`;
    return { kind: 'error', entry, reason };
  }
  const credential = result.credentials.get(entry);
  if (credential === undefined)
    return { kind: 'error', entry, reason: 'the login gave no credential for this secret' };
  return { kind: 'secret', entry, credential, generation };
}

function appliedTo(request: HttpRequest, resolution: Resolution): Applied<HttpRequest> {
  if (resolution.kind === 'none') return { kind: 'none', request };
  if (resolution.kind === 'error') return resolution;
  const { entry, credential, generation } = resolution;
  return { kind: 'applied', request: applyCredential(request, credential), entry, generation };
}
