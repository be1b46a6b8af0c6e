import { setTimeout as sleep } from 'node:timers/promises';
import { needsOast, type RetestOutcome, retestFindings } from '../retest/index.js';
import type { ScanSession } from '../scan/index.js';
import type { Finding, RetestRequest, Store } from '../store/index.js';

export interface RetestRunnerOptions {
  /** Who runs them: `serve:HOST:PID` or a worker's id. */
  readonly runner: string;
  readonly concurrency: number;
  /** The runner has secret files, so it may retest findings found with a secret. */
  readonly hasSecrets: boolean;
  /** Only this team's requests. */
  readonly teamId?: string | undefined;
  /** Stops the runner besides the session's own signal (`keyhole serve` shutting down). */
  readonly signal?: AbortSignal | undefined;
  /**
   * The session a finding is retested in, when it is not the runner's one (`keyhole serve`: the
   * session of the secret file its scan used), or why it cannot be retested here.
   */
  readonly sessionFor?: (
    finding: Finding,
    request: RetestRequest,
  ) => Promise<ScanSession | { readonly refused: string }>;
  readonly log: { info(text: string): void; error(text: string): void };
}

/** A request running this long without an end is taken again: its runner died. */
export const RETEST_REQUEST_STALE_MS = 10 * 60_000;

/**
 * Runs the oldest retest request this runner may take, recording its result (which moves the
 * finding's status) and the request's end; false when none is waiting.
 */
export async function runNextRetestRequest(
  store: Store,
  session: ScanSession,
  options: RetestRunnerOptions,
): Promise<boolean> {
  const request = await store.retestRequests.claim(options.runner, {
    hasSecrets: options.hasSecrets,
    staleMs: RETEST_REQUEST_STALE_MS,
    teamId: options.teamId,
  });
  if (request === undefined) return false;
  try {
    const end = await runRequest(store, session, options, request);
    await store.retestRequests.finish(request.id, end);
    if ('error' in end) options.log.error(`retest request ${request.id} failed: ${end.error}`);
    else options.log.info(`retested finding ${request.vulnId} (request ${request.id})`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await store.retestRequests.finish(request.id, { error: message }).catch(() => undefined);
    options.log.error(`retest request ${request.id} failed: ${message}`);
  }
  return true;
}

/**
 * Runs retest requests until `session.signal` aborts: at once when `wake` is called (the API
 * queued one), otherwise every `pollMs`. `keyhole serve` runs this on SQLite.
 */
export async function runRetestRequests(
  store: Store,
  session: ScanSession,
  options: RetestRunnerOptions & { readonly pollMs: number; readonly woken: () => Promise<void> },
): Promise<void> {
  const stop = stopSignal(session, options);
  while (!stop.aborted) {
    let ran = false;
    try {
      ran = await runNextRetestRequest(store, session, options);
    } catch (error) {
      options.log.error(`cannot take retest requests from the store: ${String(error)}; trying again`);
    }
    if (ran) continue;
    await Promise.race([
      sleep(options.pollMs, undefined, { signal: stop }).catch(() => undefined),
      options.woken(),
    ]);
  }
}

async function runRequest(
  store: Store,
  session: ScanSession,
  options: RetestRunnerOptions,
  request: RetestRequest,
): Promise<{ retestId: string } | { error: string }> {
  const finding = await store.findings.get(request.vulnId, request.teamId);
  if (finding === undefined) return { error: `finding ${request.vulnId} is gone (its scan was deleted)` };
  const chosen = options.sessionFor === undefined ? session : await options.sessionFor(finding, request);
  if ('refused' in chosen) return { error: chosen.refused };
  return retestIn(store, chosen, options, finding);
}

async function retestIn(
  store: Store,
  session: ScanSession,
  options: RetestRunnerOptions,
  finding: Finding,
): Promise<{ retestId: string } | { error: string }> {
  const others = new Set<string>();
  for await (const sibling of store.findings.allOfScan(finding.scanId)) others.add(sibling.vulnHash);
  let outcome: RetestOutcome<Finding> | undefined;
  // A worker registers its session for the first out-of-band retest; `keyhole serve` has none.
  if (await needsOast([finding])) await session.readyOast();
  const { aborted } = await retestFindings(
    [finding],
    {
      concurrency: options.concurrency,
      run: session.runOptions(true),
      resolveTarget: (target, signal) => session.resolveTarget(target, signal),
      otherFindings: () => others,
      ...(session.redact === undefined ? {} : { redact: session.redact }),
      signal: stopSignal(session, options),
    },
    (done) => {
      outcome = done;
    },
  );
  if (aborted || outcome === undefined) return { error: 'the runner stopped before the retest ended' };
  const { templateFromFile } = outcome;
  const recorded = await store.retests.record({
    vulnId: finding.id,
    resultType: outcome.verdict.resultType,
    events: outcome.events,
    ...(templateFromFile === undefined ? {} : { template: templateFromFile }),
  });
  return { retestId: recorded.id };
}

function stopSignal(session: ScanSession, options: RetestRunnerOptions): AbortSignal {
  return options.signal === undefined ? session.signal : AbortSignal.any([session.signal, options.signal]);
}
