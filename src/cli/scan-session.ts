/**
 * What every command that sends template requests sets up the same way (`scan`, `scan --rescan`,
 * `retest`): the secret files, the HTTP client behind the rate limit, the secret resolver and its
 * logins (`-ps`), the authorizer that applies each request's secret, redaction, and Ctrl-C.
 */
import { setMaxListeners } from 'node:events';
import { type LoginRunnerOptions, TemplateLoginRunner } from '../engine/index.js';
import { HttpClient, RateLimiter } from '../http/index.js';
import {
  httpProbe,
  type ScanStats,
  scanSender,
  resolveTarget as schemeOf,
  sessionAuthorizer,
  type TargetResolution,
  type TemplateRunOptions,
} from '../scan/index.js';
import {
  type LoginEvent,
  loadSecretFiles,
  originLabel,
  Redactor,
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
  /** The options of every template run: sender, authorizer, `-H`, `-var`, timeouts. */
  runOptions(matcherStatus: boolean): TemplateRunOptions;
  /** A target as given, as the URL to scan (a host without a scheme is probed). */
  resolveTarget(target: string, signal?: AbortSignal): Promise<TargetResolution>;
}

/**
 * Opens the session (client, rate limit, secret resolver; with `-ps` the logins run now and a
 * failure stops the command before any other request), runs `work`, and closes the client however
 * `work` ends. Requests are counted on `stats`, failed logins as its errors.
 */
export async function withScanSession<T>(
  config: RunConfig,
  secrets: LoadedSecrets | undefined,
  io: CliIo,
  output: ScanOutput,
  stats: ScanStats,
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
    const resolver =
      secrets === undefined
        ? undefined
        : await readyResolver(config, secrets, sender, stop.signal, output, stats);
    const probe = httpProbe(sender, { timeoutMs: config.timeoutMs });
    return await work({
      signal: stop.signal,
      redact,
      runOptions: (matcherStatus) => ({
        client: sender,
        ...(resolver === undefined ? {} : { authorizer: sessionAuthorizer(resolver) }),
        headers: config.headers,
        variables: config.variables,
        matcherStatus,
        timeoutMs: config.timeoutMs,
        retries: config.retries,
      }),
      resolveTarget: (target, signal) => schemeOf(target, probe, signal),
    });
  } finally {
    releaseInterrupts();
    await client.close();
  }
}

/**
 * The secret resolver, its logins run by the engine through the session's sender (rate limit and
 * counting included). With `-ps`, every login that has an input runs now; a failure stops the
 * command before any other request.
 */
async function readyResolver(
  config: RunConfig,
  secrets: LoadedSecrets,
  sender: LoginRunnerOptions['client'],
  signal: AbortSignal,
  output: ScanOutput,
  stats: ScanStats,
): Promise<SecretResolver> {
  const state = { prefetching: false };
  const resolver = new SecretResolver(secrets.set, {
    redactor: secrets.redactor,
    runner: new TemplateLoginRunner(loginOptions(config, sender, signal)),
    onEvent: (event) => reportLogin(event, state, output, stats),
  });
  if (!config.prefetch) return resolver;
  for (const login of secrets.set.logins) {
    if (login.input !== undefined) continue;
    output.info(
      `${originLabel(login.origin)} of ${login.origin.file} has no input: it logs in on the first request that needs it`,
    );
  }
  state.prefetching = true;
  const failures = await resolver.prefetch();
  state.prefetching = false;
  if (failures.length > 0 && !signal.aborted) {
    for (const { login, reason } of failures)
      output.fatal(`${originLabel(login.origin)} of ${login.origin.file}: ${reason}`);
    throw new UserError('the logins of -ps failed; no scan request was sent');
  }
  return resolver;
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

/** Logins as they happen; a failed `-ps` login is reported by the command as it stops. */
function reportLogin(
  event: LoginEvent,
  state: { readonly prefetching: boolean },
  output: ScanOutput,
  stats: ScanStats,
): void {
  const where = `${originLabel(event.login.origin)} of ${event.login.origin.file}`;
  switch (event.kind) {
    case 'login':
      output.info(`${event.relogin ? 'logging in again' : 'logging in'} for ${where} at ${event.target}`);
      return;
    case 'login-ok':
      output.info(`logged in for ${where}`);
      return;
    case 'login-failed':
      if (state.prefetching) return;
      stats.errors++;
      output.error(`login failed for ${where}: ${event.reason}; requests that need it are not sent`);
      return;
  }
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
