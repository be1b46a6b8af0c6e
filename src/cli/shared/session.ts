/**
 * What every command that sends template requests does the same way around the scan session
 * (`scan`, `scan --rescan`, `retest`, `worker`): the secret files of `-sf`, Ctrl-C, and what the
 * session reports, shown on the command's output.
 */

import { registerOutbound } from '../../dsl/index.js';
import {
  type OastPlan,
  OastUnavailable,
  PrefetchFailed,
  plannedEntries,
  prefetchedWork,
  rejectionCauses,
  type ScanSession,
  type SessionListener,
  type SessionSettings,
  withScanSession,
} from '../../scan/index.js';
import {
  type Coverage,
  type LoginEvent,
  loadSecretFiles,
  type Redactor,
  type SecretEntry,
  type SecretSet,
} from '../../secretfile/index.js';
import { formatDiagnostic } from '../../source/index.js';
import { UserError } from '../exit.js';
import type { CliIo } from '../io.js';
import { chooseProxy } from './proxy.js';
import type { RunConfig } from './request-config.js';
import type { ScanOutput } from './scan-output.js';
import { plural } from './words.js';

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
    templatesDir,
  });
  if (loaded.secrets === undefined) {
    for (const d of loaded.diagnostics) output.fatal(formatDiagnostic(d));
    throw new UserError('the secret files have errors; fix them first (keyhole secrets validate shows them)');
  }
  for (const d of loaded.diagnostics) output.warn(formatDiagnostic(d));
  return { set: loaded.secrets, redactor: loaded.redactor };
}

/** What a command's session counts: requests on the wire, failed logins as errors. */
export interface SessionCounts {
  requests: number;
  errors: number;
}

/**
 * The command's session (see scan/session.ts), with the command line around it: Ctrl-C stops it,
 * the entries that apply to no target and the targets without a secret are warned about, logins
 * are reported (a failed one even with `-silent`), requests and failed logins are counted on
 * `counts`, and a failed `-ps` login stops the command before any scan request.
 */
export async function withCommandSession<T>(
  config: RunConfig,
  secrets: LoadedSecrets | undefined,
  context: {
    readonly io: CliIo;
    readonly output: ScanOutput;
    readonly counts?: SessionCounts;
    /** Out-of-band testing for the templates that need it. */
    readonly oast?: OastPlan | undefined;
    /** Register with the interactsh server once a run needs it, not before the first request. */
    readonly oastOnDemand?: boolean;
  },
  targets: readonly string[] | undefined,
  work: (session: ScanSession) => Promise<T>,
): Promise<T> {
  const { io, output, counts } = context;
  const proxy = await chooseProxy(config.proxies, io, config.timeoutMs);
  if (proxy !== undefined) output.info(`every request goes through the proxy ${proxy.label}`);
  const stop = new AbortController();
  const releaseInterrupts = onInterrupts(io, stop, output);
  // helpers that send something to a service other than the targets (public_ip, llm_prompt) read
  // their settings from the command's environment and say what they send
  const stopAnnouncing = registerOutbound({
    environment: io.env,
    announce: (notice) => output.info(notice),
    warn: (message) => output.warn(message),
  });
  const settings: SessionSettings = {
    timeoutMs: config.timeoutMs,
    concurrency: config.concurrency,
    rateLimit: config.rateLimit,
    retries: config.retries,
    maxHostErrors: config.maxHostErrors,
    proxy,
    dump: config.dump,
    headers: config.headers,
    variables: config.variables,
    overrides: config.overrides,
    redact: config.redact,
    prefetch: config.prefetch,
    secrets,
    targets,
    signal: stop.signal,
    chromium: io.env.KEYHOLE_CHROMIUM || undefined,
    ...(context.oast === undefined ? {} : { oast: context.oast }),
    ...(context.oastOnDemand === true ? { oastOnDemand: true } : {}),
  };
  const listener: SessionListener = {
    ...(counts === undefined
      ? {}
      : {
          onRequest: () => {
            counts.requests++;
          },
        }),
    onCoverage: (covered) => warnAboutCoverage(covered, targets?.length ?? 0, config.prefetch, output),
    onLogin: (event, entry, prefetching) => reportLogin(event, entry, prefetching, output, counts),
    onHostSkipped: (host) => output.hostSkipped(host),
    onDump: (dumped) => output.dumped(dumped),
    onOastReady: (description) => output.info(`out-of-band callbacks go to ${description}`),
    onOastPollError: (message) => output.warn(`out-of-band: ${message}`),
    onSecretRejected: (label, rejected, answers) =>
      output.alert(
        `${label}: the target refused ${label.startsWith('-H ') ? 'it' : 'its secret'} on each of the first ${answers} requests that carried it (${rejectionCauses(rejected)}); the scan goes on, and fails at its end if every answer refuses it`,
      ),
  };
  try {
    return await withScanSession(settings, listener, work);
  } catch (error) {
    if (error instanceof OastUnavailable) throw new UserError(error.message);
    if (!(error instanceof PrefetchFailed)) throw error;
    for (const { entry, reason } of error.failures)
      output.fatal(
        entry.kind === 'static' ? `${entry.label}: ${reason}` : `login failed for ${entry.label}: ${reason}`,
      );
    throw new UserError(`the ${prefetchedWork(error.failures)} of -ps failed; no scan request was sent`);
  } finally {
    releaseInterrupts();
    stopAnnouncing();
  }
}

/**
 * The entries a queued scan is planned with (those that apply to one of its targets; workers that
 * lack one do not take the scan); the others are warned about, as a scan run here would.
 */
export function plannedSecretEntries(
  set: SecretSet,
  targets: readonly string[],
  output: ScanOutput,
): SecretEntry[] {
  const planned = plannedEntries(set, targets);
  warnAboutCoverage(planned.coverage, targets.length, false, output);
  return planned.entries;
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

/**
 * Logins and secret checks as they happen. A failed one is an error even with `-silent`: requests
 * in its scope are not sent, so the scan is not the one asked for. A failed `-ps` one is reported
 * as the command stops.
 */
function reportLogin(
  event: LoginEvent,
  entry: SecretEntry,
  prefetching: boolean,
  output: ScanOutput,
  counts: SessionCounts | undefined,
): void {
  switch (event.kind) {
    case 'login':
      output.info(
        `${event.relogin ? 'logging in again' : 'logging in'} for ${entry.label} at ${event.target}`,
      );
      return;
    case 'login-ok':
      output.info(`logged in for ${entry.label}`);
      return;
    case 'login-failed':
      if (prefetching) return;
      if (counts !== undefined) counts.errors++;
      output.alert(`login failed for ${entry.label}: ${event.reason}; requests in its scope are not sent`);
      return;
    case 'session-lost':
      if (counts !== undefined) counts.errors++;
      output.alert(`${entry.label}: ${event.reason}`);
      return;
    case 'secret-check':
      output.info(
        `${event.again ? 'checking again' : 'checking'} the secret of ${entry.label} at ${event.secret.verify?.url ?? ''}`,
      );
      return;
    case 'secret-check-ok':
      output.info(`the secret of ${entry.label} passed its check`);
      return;
    case 'secret-check-failed':
      if (prefetching) return;
      if (counts !== undefined) counts.errors++;
      output.alert(`${entry.label}: ${event.reason}; requests in its scope are not sent`);
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
