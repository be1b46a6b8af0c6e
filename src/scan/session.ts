/**
 * The one place a scan is wired, for every caller (`keyhole scan`, its rescans, retests, workers):
 * the HTTP client, the request seam in front of it (secrets, resends, rate, the wire), the secret
 * resolver and its logins, the ledger of what was authenticated, and the scheme probe.
 *
 *   scan requests    secrets(resolver, ledger) ┐
 *   login requests   secrets(static entries)   ├→ host errors → resends → rate → wire → dump → HttpClient
 *   scheme probes                              └───────────────────────────→ rate → wire ┘
 */
import { setMaxListeners } from 'node:events';
import { LoginError, type SendingOverrides, TemplateLoginRunner } from '../engine/index.js';
import { type HeaderList, HttpClient, type ProxyServer, RateLimiter } from '../http/index.js';
import {
  type Coverage,
  coverage,
  entryOf,
  eventEntry,
  isCredentialHeader,
  type Login,
  type LoginEvent,
  loginEntry,
  Redactor,
  type SecretEntry,
  SecretResolver,
  type SecretSet,
  type StaticSecret,
} from '../secretfile/index.js';
import {
  chain,
  type Dispatch,
  type Dumped,
  type DumpSettings,
  dumping,
  HostErrorBudget,
  onTheWire,
  rateLimited,
  retrying,
  type SkippedHost,
  transportDispatch,
  watchingHeaders,
  withSecrets,
} from '../send/index.js';
import { AuthLedger, EARLY_REJECTIONS, type RejectionCounts } from './auth-ledger.js';
import { type OastPlan, type OpenOast, openOast } from './oast.js';
import type { TemplateRunOptions } from './run-scan.js';
import { httpProbe, resolveTarget, type TargetResolution } from './target.js';

/** How a session sends: what the request flags of `keyhole scan` say. */
export interface SessionSettings {
  readonly timeoutMs: number;
  /** Template runs at once: the connections each origin may get. */
  readonly concurrency: number;
  /** Requests per second, all of the session's (logins and probes too); undefined: no limit. */
  readonly rateLimit: number | undefined;
  /** Times a request that failed in transport is sent again. */
  readonly retries: number;
  /** `-debug`, `-debug-req`, `-debug-resp`: what of each request on the wire is shown. */
  readonly dump: DumpSettings;
  /** `-proxy`: every connection goes through it. */
  readonly proxy: ProxyServer | undefined;
  /** `-mhe`: failures in a row after which a host is skipped; undefined: never (`-nmhe`). */
  readonly maxHostErrors: number | undefined;
  /** `-H`: set on every request, below its secret. */
  readonly headers: HeaderList;
  /** `-var`. */
  readonly variables: Readonly<Record<string, string>>;
  /** `-dr`, `-fr`, `-sni`, `-at`, …: what the templates' requests are made to do otherwise. */
  readonly overrides?: SendingOverrides;
  /** Mask secret values in what is shown or stored (false with `--no-redact`). */
  readonly redact: boolean;
  /** `-ps`: log in, and check the static secrets that have a `verify:`, before the first scan request. */
  readonly prefetch: boolean;
  readonly secrets: { readonly set: SecretSet; readonly redactor: Redactor } | undefined;
  /** The targets, when known before the first request (a worker learns its own per chunk). */
  readonly targets?: readonly string[] | undefined;
  /** Stops the session: no new request goes out, requests in flight are aborted. */
  readonly signal: AbortSignal;
  /** Out-of-band testing: where callbacks go; none (`-ni`, or no template needs it) when absent. */
  readonly oast?: OastPlan;
  /**
   * Register with the interactsh server only when {@link ScanSession.readyOast} is first called (a
   * worker, once a chunk needs it), instead of before the first request.
   */
  readonly oastOnDemand?: boolean;
  /** The Chromium a browser login drives (`KEYHOLE_CHROMIUM`); unset: Debian's, /usr/bin/chromium. */
  readonly chromium?: string | undefined;
}

/** What the session tells its caller, to show or count. */
export interface SessionListener {
  /** A request went on the wire. */
  onRequest?(): void;
  /** Before the first request: which entries apply to which targets (when the targets are known). */
  onCoverage?(coverage: Coverage): void;
  /**
   * A login or a static entry's secret check started, ended or failed; `prefetching` while `-ps`
   * runs them (a failure then stops the session).
   */
  onLogin?(event: LoginEvent, entry: SecretEntry, prefetching: boolean): void;
  /** A request or response on the wire, redacted unless `--no-redact` (`-debug`). */
  onDump?(dumped: Dumped): void;
  /** A host was given up on (`-mhe`): its requests are not sent from now on. */
  onHostSkipped?(host: SkippedHost): void;
  /** Out-of-band testing is ready: where callbacks go. */
  onOastReady?(description: string): void;
  /** A poll of the interactsh server failed (the session keeps polling). */
  onOastPollError?(message: string): void;
  /**
   * The target refused an entry's secret (`label`: `static[0] of s.yaml`), or the credential
   * headers of `-H` (`-H Authorization`), on each of the first answers to requests that carried it
   * (`EARLY_REJECTIONS` of them): once per entry, while the scan goes on.
   */
  onSecretRejected?(label: string, rejected: RejectionCounts, answers: number): void;
}

/** `-ps` logins or secret checks that failed: nothing of the scan was sent. */
export class PrefetchFailed extends Error {
  override readonly name = 'PrefetchFailed';
  constructor(readonly failures: readonly { readonly entry: SecretEntry; readonly reason: string }[]) {
    super(`the ${prefetchedWork(failures)} of -ps failed: ${failures.map((f) => f.entry.label).join(', ')}`);
  }
}

/** `logins`, `secret checks`, or both: what of `-ps` failed. */
export function prefetchedWork(failures: readonly { readonly entry: SecretEntry }[]): string {
  const checks = failures.filter((f) => f.entry.kind === 'static').length;
  if (checks === 0) return 'logins';
  return checks === failures.length ? 'secret checks' : 'logins and secret checks';
}

/** A session's settings for the template runs it makes. */
export interface ScanSession {
  readonly signal: AbortSignal;
  /** Applied to every text shown or stored; undefined with `--no-redact`. */
  readonly redact: ((text: string) => string) | undefined;
  /** Every request of the templates, with its secret or without, every refusal and every login. */
  readonly ledger: AuthLedger;
  /** The options of every template run: the dispatch, `-H`, `-var`, timeouts. */
  runOptions(matcherStatus: boolean): TemplateRunOptions;
  /** A target as given, as the URL to scan (a host without a scheme is probed). */
  resolveTarget(target: string, signal?: AbortSignal): Promise<TargetResolution>;
  /**
   * Lets logins that failed run again on their next request, and gives hosts given up on another
   * chance (a worker, between chunks: the next chunk may be another scan's).
   */
  forgetFailures(): void;
  /** Hosts given up on (`-mhe`), and the requests to them that were not sent. */
  skippedHosts(): { readonly hosts: number; readonly requestsNotSent: number };
  /**
   * Registers with the interactsh server if the session has not yet (once; rejects with
   * {@link OastUnavailable} when no server can be used); runs made after it get the callbacks.
   */
  readyOast(): Promise<void>;
}

/**
 * Opens a session, says which entries apply to which targets, runs the `-ps` logins (rejecting with
 * {@link PrefetchFailed} before any scan request when one fails), runs `work`, and closes the client
 * however `work` ends.
 */
export async function withScanSession<T>(
  settings: SessionSettings,
  listener: SessionListener,
  work: (session: ScanSession) => Promise<T>,
): Promise<T> {
  const client = new HttpClient({
    timeoutMs: settings.timeoutMs,
    connectionsPerOrigin: Math.max(25, settings.concurrency),
    proxy: settings.proxy,
  });
  // Every request in flight listens to the session's signal: hundreds at once is normal here.
  setMaxListeners(0, settings.signal);
  const oast = new OastOpener(settings.oast, listener);
  try {
    if (settings.oastOnDemand !== true) await oast.ready();
    return await work(await openSession(settings, listener, client, oast));
  } finally {
    await oast.close();
    await client.close();
  }
}

/** The session's registration with an interactsh server, opened once when first wanted. */
class OastOpener {
  #opening: Promise<OpenOast> | undefined;
  #open: OpenOast | undefined;

  constructor(
    private readonly plan: OastPlan | undefined,
    private readonly listener: SessionListener,
  ) {}

  /** The watcher, once open. */
  get watcher(): OpenOast['watcher'] | undefined {
    return this.#open?.watcher;
  }

  async ready(): Promise<void> {
    const plan = this.plan;
    if (plan === undefined) return;
    this.#opening ??= openOast(plan, (error) =>
      this.listener.onOastPollError?.(error instanceof Error ? error.message : String(error)),
    ).then((open) => {
      this.#open = open;
      this.listener.onOastReady?.(open.description);
      return open;
    });
    try {
      await this.#opening;
    } catch (error) {
      // Another chunk may try again: a server down a minute ago may answer now.
      this.#opening = undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#opening?.catch(() => undefined);
    await this.#open?.close();
  }
}

async function openSession(
  settings: SessionSettings,
  listener: SessionListener,
  client: HttpClient,
  oast: OastOpener,
): Promise<ScanSession> {
  const limiter = settings.rateLimit === undefined ? undefined : new RateLimiter(settings.rateLimit);
  const rate = limiter === undefined ? undefined : rateLimited(limiter);
  const redactor = settings.secrets?.redactor ?? new Redactor();
  for (const [name, value] of settings.headers) redactor.registerHeader(name, value);
  const redact = settings.redact ? (text: string) => redactor.redact(text) : undefined;
  const dump = dumping(settings.dump, (dumped) =>
    listener.onDump?.(
      redact === undefined || dumped.kind === 'sent' ? dumped : { ...dumped, text: redact(dumped.text) },
    ),
  );
  const wire = chain(transportDispatch(client), [rate, onTheWire(() => listener.onRequest?.()), dump]);
  const hostErrors =
    settings.maxHostErrors === undefined
      ? undefined
      : new HostErrorBudget(settings.maxHostErrors, (host) => listener.onHostSkipped?.(host));
  const sent = chain(wire, [hostErrors?.interceptor, retrying(settings.retries)]);
  const probe = httpProbe(wire, { timeoutMs: settings.timeoutMs });
  const credentials = settings.headers.filter(([name]) => isCredentialHeader(name));
  const ledger = new AuthLedger(
    settings.secrets?.set,
    (label, rejected) => listener.onSecretRejected?.(label, rejected, EARLY_REJECTIONS),
    credentials.length === 0 ? undefined : credentials.map(([name]) => `-H ${name}`).join(', '),
  );
  const resolveScheme = (target: string, signal?: AbortSignal) => resolveTarget(target, probe, signal);
  const resolver =
    settings.secrets === undefined
      ? undefined
      : await readyResolver(settings, settings.secrets, {
          sent,
          ledger,
          listener,
          resolveScheme,
          ...(limiter === undefined ? {} : { pace: () => limiter.take() }),
        });
  const dispatch: Dispatch = chain(sent, [
    resolver === undefined ? undefined : withSecrets(resolver, ledger),
    credentials.length === 0 ? undefined : watchingHeaders(credentials, (r) => ledger.answeredWithHeaders(r)),
  ]);
  return {
    signal: settings.signal,
    redact,
    ledger,
    runOptions: (matcherStatus) => ({
      dispatch,
      exchangeDeadlines: 1 + settings.retries,
      headers: settings.headers,
      variables: settings.variables,
      ...(settings.overrides === undefined ? {} : { overrides: settings.overrides }),
      matcherStatus,
      timeoutMs: settings.timeoutMs,
      ...(oast.watcher === undefined ? {} : { oast: oast.watcher }),
    }),
    resolveTarget: resolveScheme,
    forgetFailures: () => {
      resolver?.forgetFailedLogins();
      hostErrors?.forget();
    },
    skippedHosts: () => hostErrors?.figures ?? { hosts: 0, requestsNotSent: 0 },
    readyOast: () => oast.ready(),
  };
}

interface ResolverParts {
  /** The dispatch logins send through (resends, rate, wire); their secrets are added by the runner. */
  readonly sent: Dispatch;
  readonly ledger: AuthLedger;
  readonly listener: SessionListener;
  readonly resolveScheme: (target: string, signal?: AbortSignal) => Promise<TargetResolution>;
  /** `-rl` for the requests of a browser login, which do not go through `sent`. */
  readonly pace?: () => Promise<void>;
}

/**
 * The secret resolver, its logins run by the engine through the session's dispatch. With `-ps`,
 * every login whose entry applies to a target runs now.
 */
async function readyResolver(
  settings: SessionSettings,
  secrets: NonNullable<SessionSettings['secrets']>,
  parts: ResolverParts,
): Promise<SecretResolver> {
  const { ledger, listener } = parts;
  let prefetching = false;
  const resolver = new SecretResolver(secrets.set, {
    redactor: secrets.redactor,
    runner: new TemplateLoginRunner({
      dispatch: parts.sent,
      exchangeDeadlines: 1 + settings.retries,
      timeoutMs: settings.timeoutMs,
      signal: settings.signal,
      run: { headers: settings.headers },
      ...(settings.chromium === undefined ? {} : { chromium: settings.chromium }),
      ...(settings.proxy === undefined ? {} : { proxy: settings.proxy }),
      ...(parts.pace === undefined ? {} : { pace: parts.pace }),
      resolveInput: async (input) => {
        const resolved = await parts.resolveScheme(input, settings.signal);
        if (!resolved.ok) throw new LoginError(`nothing answers at ${input}: ${resolved.message}`);
        return resolved.url;
      },
    }),
    onEvent: (event) => {
      ledger.login(event);
      listener.onLogin?.(event, eventEntry(event), prefetching);
    },
  });
  const covered = settings.targets === undefined ? undefined : coverage(secrets.set, settings.targets);
  if (covered !== undefined) listener.onCoverage?.(covered);
  if (!settings.prefetch) return resolver;
  const logins = await prefetchTargets(secrets.set, covered, parts.resolveScheme, settings.signal);
  prefetching = true;
  // The checks first: a login's own requests may carry a checked static secret.
  const failedChecks = await resolver.prefetchChecks(checkedSecrets(secrets.set, covered));
  const failedLogins = await resolver.prefetch(logins);
  prefetching = false;
  const failures = [
    ...failedChecks.map(({ secret, reason }) => ({ entry: entryOf(secret), reason })),
    ...failedLogins.map(({ login, reason }) => ({ entry: loginEntry(login), reason })),
  ];
  if (failures.length > 0 && !settings.signal.aborted) throw new PrefetchFailed(failures);
  return resolver;
}

/**
 * The static entries whose `verify:` runs with `-ps`: those that apply to a target, or, without
 * known targets (a worker), all of them (their check URL is written in the file).
 */
function checkedSecrets(set: SecretSet, covered: Coverage | undefined): StaticSecret[] {
  return set.entries.filter(
    (secret): secret is StaticSecret =>
      secret.kind === 'static' &&
      secret.verify !== undefined &&
      (covered === undefined || covered.firstTarget.has(entryOf(secret))),
  );
}

/**
 * Where each login of `-ps` runs: at its `input`, else at the origin of the first target its entry
 * applies to (where its first request would have logged it in). Without known targets (a worker),
 * only logins with an input run now; the others log in on first need.
 */
async function prefetchTargets(
  set: SecretSet,
  covered: Coverage | undefined,
  resolveScheme: (target: string, signal?: AbortSignal) => Promise<TargetResolution>,
  signal: AbortSignal,
): Promise<{ login: Login; target: string }[]> {
  const logins: { login: Login; target: string }[] = [];
  for (const login of set.logins) {
    if (login.input !== undefined) {
      if (covered === undefined || covered.firstTarget.has(loginEntry(login)))
        logins.push({ login, target: login.input });
      continue;
    }
    const first = covered?.firstTarget.get(loginEntry(login));
    if (first === undefined) continue;
    const resolved = await resolveScheme(first.target, signal);
    if (!resolved.ok) {
      throw new PrefetchFailed([
        { entry: loginEntry(login), reason: `cannot log in at ${first.target}: ${resolved.message}` },
      ]);
    }
    logins.push({ login, target: originOf(resolved.url) });
  }
  return logins;
}

function originOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * The entries a queued scan is planned with: those that apply to one of its targets. Workers that
 * lack one of them do not take the scan.
 */
export function plannedEntries(
  set: SecretSet,
  targets: readonly string[],
): { entries: SecretEntry[]; coverage: Coverage } {
  const covered = coverage(set, targets);
  return { entries: [...covered.firstTarget.keys()], coverage: covered };
}
