/**
 * What every command that sends template requests sets up the same way (`scan`, `scan --rescan`,
 * `retest`): the secret files, the HTTP client behind the rate limit, the secret resolver and its
 * logins (`-ps`), the authorizer that applies each request's secret, redaction, and Ctrl-C.
 */
import { setMaxListeners } from 'node:events';
import { type LoginRunnerOptions, TemplateLoginRunner } from '../engine/index.js';
import { HttpClient, RateLimiter } from '../http/index.js';
import {
  AuthLedger,
  httpProbe,
  type ScanStats,
  scanSender,
  resolveTarget as schemeOf,
  sessionAuthorizer,
  type TargetResolution,
  type TemplateRunOptions,
} from '../scan/index.js';
import {
  type Coverage,
  coverage,
  type Login,
  type LoginEvent,
  loadSecretFiles,
  loginEntry,
  Redactor,
  type SecretEntry,
  SecretResolver,
  type SecretSet,
} from '../secretfile/index.js';
import { formatDiagnostic } from '../source/index.js';
import { UserError } from './exit.js';
import type { CliIo } from './io.js';
import type { RunConfig } from './scan-options.js';
import type { ScanOutput } from './scan-output.js';

export interface LoadedSecrets {
  readonly set: SecretSet;
  readonly redactor: Redactor;
}

/** The secret files of `-sf`, or undefined when none is given; files with errors stop the command. */
export async function readSecrets(
  config: Pick<RunConfig, 'secretFiles'>,
  io: CliIo,
  output: ScanOutput,
  templatesDir?: string,
): Promise<LoadedSecrets | undefined> {
  if (config.secretFiles.length === 0) return undefined;
  const loaded = await loadSecretFiles(config.secretFiles, {
    cwd: io.cwd,
    env: io.env,
    ...(templatesDir === undefined ? {} : { templatesDir }),
  });
  if (loaded.secrets === undefined) {
    for (const d of loaded.diagnostics) output.fatal(formatDiagnostic(d));
    throw new UserError('the secret files have errors; fix them first (keyhole secrets validate shows them)');
  }
  for (const d of loaded.diagnostics) output.warn(formatDiagnostic(d));
  return { set: loaded.secrets, redactor: loaded.redactor };
}

/** What a command runs templates with, once the session is open. */
export interface ScanSession {
  /** Aborted by Ctrl-C: no new run starts, requests in flight are aborted. */
  readonly signal: AbortSignal;
  /** Applied to every text shown or stored; undefined with `--no-redact`. */
  readonly redact: ((text: string) => string) | undefined;
  /** Every request of the templates, with its secret or without, every refusal and every login. */
  readonly ledger: AuthLedger;
  /** The options of every template run: sender, authorizer, `-H`, `-var`, timeouts. */
  runOptions(matcherStatus: boolean): TemplateRunOptions;
  /** A target as given, as the URL to scan (a host without a scheme is probed). */
  resolveTarget(target: string, signal?: AbortSignal): Promise<TargetResolution>;
  /** Lets logins that failed run again on their next request (a worker, between scans). */
  retryFailedLogins(): void;
}

/** What the session is opened for: the targets, when known before the first request. */
export interface SessionScope {
  /** The targets the session will scan; undefined when they come later (a worker's chunks). */
  readonly targets?: readonly string[];
}

/**
 * Opens the session (client, rate limit, secret resolver), says which secret entries apply to none
 * of the targets and which targets get no secret, logs in now with `-ps` (a failure stops the
 * command before any other request), runs `work`, and closes the client however `work` ends.
 * Requests are counted on `stats`, failed logins as its errors.
 */
export async function withScanSession<T>(
  config: RunConfig,
  secrets: LoadedSecrets | undefined,
  io: CliIo,
  output: ScanOutput,
  stats: ScanStats,
  scope: SessionScope,
  work: (session: ScanSession) => Promise<T>,
): Promise<T> {
  const client = new HttpClient({
    timeoutMs: config.timeoutMs,
    connectionsPerOrigin: Math.max(25, config.concurrency),
  });
  const stop = new AbortController();
  // Every request in flight listens to the session's signal: hundreds at once is normal here.
  setMaxListeners(0, stop.signal);
  const releaseInterrupts = onInterrupts(io, stop, output);
  try {
    const sender = scanSender(client, {
      ...(config.rateLimit === undefined ? {} : { rate: new RateLimiter(config.rateLimit) }),
      onSend: () => {
        stats.requests++;
      },
    });
    const redactor = secrets?.redactor ?? new Redactor();
    for (const [name, value] of config.headers) redactor.registerHeader(name, value);
    const redact = config.redact ? (text: string) => redactor.redact(text) : undefined;
    const probe = httpProbe(sender, { timeoutMs: config.timeoutMs });
    const resolveTarget = (target: string, signal?: AbortSignal) => schemeOf(target, probe, signal);
    const ledger = new AuthLedger(secrets?.set);
    const resolver =
      secrets === undefined
        ? undefined
        : await readyResolver(
            { config, secrets, sender, signal: stop.signal, output, stats, ledger },
            scope,
            resolveTarget,
          );
    return await work({
      signal: stop.signal,
      redact,
      ledger,
      runOptions: (matcherStatus) => ({
        client: sender,
        ...(resolver === undefined ? {} : { authorizer: sessionAuthorizer(resolver, ledger) }),
        headers: config.headers,
        variables: config.variables,
        matcherStatus,
        timeoutMs: config.timeoutMs,
        retries: config.retries,
      }),
      resolveTarget,
      retryFailedLogins: () => resolver?.forgetFailedLogins(),
    });
  } finally {
    releaseInterrupts();
    await client.close();
  }
}

interface ResolverParts {
  readonly config: RunConfig;
  readonly secrets: LoadedSecrets;
  readonly sender: LoginRunnerOptions['client'];
  readonly signal: AbortSignal;
  readonly output: ScanOutput;
  readonly stats: ScanStats;
  readonly ledger: AuthLedger;
}

/**
 * The secret resolver, its logins run by the engine through the session's sender (rate limit and
 * counting included). With `-ps`, every login whose entry applies to a target runs now; a failure
 * stops the command before any other request.
 */
async function readyResolver(
  parts: ResolverParts,
  scope: SessionScope,
  resolveTarget: (target: string, signal?: AbortSignal) => Promise<TargetResolution>,
): Promise<SecretResolver> {
  const { config, secrets, sender, signal, output } = parts;
  const state = { prefetching: false };
  const resolver = new SecretResolver(secrets.set, {
    redactor: secrets.redactor,
    runner: new TemplateLoginRunner(loginOptions(config, sender, signal)),
    onEvent: (event) => reportLogin(event, state, parts),
  });
  const covered = scope.targets === undefined ? undefined : coverage(secrets.set, scope.targets);
  if (covered !== undefined) warnAboutCoverage(covered, scope.targets?.length ?? 0, config.prefetch, output);
  if (!config.prefetch) return resolver;
  const logins = await prefetchTargets(secrets.set, covered, resolveTarget, signal, output);
  state.prefetching = true;
  const failures = await resolver.prefetch(logins);
  state.prefetching = false;
  if (failures.length > 0 && !signal.aborted) {
    for (const { login, reason } of failures)
      output.fatal(`login failed for ${loginEntry(login).label}: ${reason}`);
    throw new UserError('the logins of -ps failed; no scan request was sent');
  }
  return resolver;
}

/**
 * Where each login of `-ps` runs: at its `input`, else at the origin of the first target its entry
 * applies to (where its first request would have logged it in). Without known targets (a worker),
 * only logins with an input run now.
 */
async function prefetchTargets(
  set: SecretSet,
  covered: Coverage | undefined,
  resolveTarget: (target: string, signal?: AbortSignal) => Promise<TargetResolution>,
  signal: AbortSignal,
  output: ScanOutput,
): Promise<{ login: Login; target: string }[]> {
  const logins: { login: Login; target: string }[] = [];
  for (const login of set.logins) {
    const entry = loginEntry(login);
    if (covered === undefined) {
      if (login.input !== undefined) logins.push({ login, target: login.input });
      else output.info(`${entry.label} has no input: it logs in on the first request that needs it`);
      continue;
    }
    const first = covered.firstTarget.get(entry);
    if (first === undefined) continue;
    if (login.input !== undefined) {
      logins.push({ login, target: login.input });
      continue;
    }
    const resolved = await resolveTarget(first.target, signal);
    if (!resolved.ok)
      throw new UserError(`-ps: cannot log in for ${entry.label} at ${first.target}: ${resolved.message}`);
    logins.push({ login, target: originOf(resolved.url) });
  }
  return logins;
}

/**
 * The entries a queued scan is planned with: those that apply to one of its targets. Workers that
 * lack one of them do not take the scan. The others are warned about, as a scan run here would.
 */
export function plannedSecretEntries(
  set: SecretSet,
  targets: readonly string[],
  output: ScanOutput,
): SecretEntry[] {
  const covered = coverage(set, targets);
  warnAboutCoverage(covered, targets.length, false, output);
  return [...covered.firstTarget.keys()];
}

function originOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/** Warnings before the first request: entries that apply to no target, targets that get no secret. */
function warnAboutCoverage(covered: Coverage, targets: number, prefetch: boolean, output: ScanOutput): void {
  for (const { entry, cause } of covered.unmatched) {
    const notLoggedIn = prefetch && entry.kind === 'dynamic' ? '; it is not logged in' : '';
    const why = cause === undefined ? '' : `: ${cause}`;
    output.warn(
      `${entry.label} (${entry.types.join(', ')} for ${entry.scope}) applies to none of the scan's targets${why}${notLoggedIn}`,
    );
  }
  const { uncovered } = covered;
  if (uncovered.length === 0) return;
  const shown = uncovered.slice(0, 5).join(', ');
  const more = uncovered.length > 5 ? `, and ${uncovered.length - 5} more` : '';
  const list = uncovered.length > 5 ? `first: ${shown}${more}` : shown;
  output.warn(
    `${uncovered.length} of ${plural(targets, 'target')} get${uncovered.length === 1 ? 's' : ''} no secret from the secret files (${list}); their requests go unauthenticated`,
  );
}

function loginOptions(
  config: RunConfig,
  sender: LoginRunnerOptions['client'],
  signal: AbortSignal,
): LoginRunnerOptions {
  return {
    client: sender,
    timeoutMs: config.timeoutMs,
    retries: config.retries,
    signal,
    run: { headers: config.headers },
  };
}

/**
 * Logins as they happen, counted on the ledger. A failed login is an error even with `-silent`:
 * requests in its scope are not sent, so the scan is not the one asked for. A failed `-ps` login
 * is reported by the command as it stops.
 */
function reportLogin(
  event: LoginEvent,
  state: { readonly prefetching: boolean },
  parts: ResolverParts,
): void {
  const { output, stats, ledger } = parts;
  ledger.login(event);
  const entry = loginEntry(event.login).label;
  switch (event.kind) {
    case 'login':
      output.info(`${event.relogin ? 'logging in again' : 'logging in'} for ${entry} at ${event.target}`);
      return;
    case 'login-ok':
      output.info(`logged in for ${entry}`);
      return;
    case 'login-failed':
      if (state.prefetching) return;
      stats.errors++;
      output.alert(`login failed for ${entry}: ${event.reason}; requests in its scope are not sent`);
      return;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** First Ctrl-C: stop cleanly (no new run, requests in flight aborted, results kept); second: quit. */
function onInterrupts(io: CliIo, stop: AbortController, output: ScanOutput): () => void {
  const interrupts = io.interrupts;
  if (interrupts === undefined) return () => {};
  let count = 0;
  return interrupts.on(() => {
    count++;
    if (count === 1) {
      output.warn(
        'stopping: requests in flight are aborted, what was found is kept (Ctrl-C again to quit now)',
      );
      stop.abort(new Error('interrupted'));
    } else {
      interrupts.exitNow(130);
    }
  });
}
