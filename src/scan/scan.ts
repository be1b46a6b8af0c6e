import type { AuthFigures, AuthLedger, EntryFigures, HeaderFigures, RejectionCounts } from './auth-ledger.js';
import type { ScanRecorder, ScanStart } from './recorder.js';
import { plannedRuns, runScan, type ScanPlan, type ScanRunSettings } from './run-scan.js';

export interface ScanSettings extends ScanRunSettings {
  readonly recorder: ScanRecorder;
  readonly describe: Pick<ScanStart, 'name' | 'templates' | 'assetIds' | 'rescanOf'>;
  /**
   * The scan's authentication, recorded with it; a failed login, or a secret (or `-H` credential)
   * the target turned away on every answer, fails the scan. A session shared by several scans gives
   * the figures since this scan began.
   */
  readonly ledger?: Pick<AuthLedger, 'figures'> | undefined;
}

export interface ScanOutcome {
  /** `finished`: every run done; `interrupted`: stopped by `signal`; `failed`: the scan could not go on or be recorded. */
  readonly outcome: 'finished' | 'interrupted' | 'failed';
  /** Why it failed. */
  readonly failure?: string;
}

export const INTERRUPTED = 'interrupted: the scan was stopped before it finished';

/**
 * A whole scan: recorded as started, run, and recorded as finished (or failed, with why). The
 * recorder sees every finding as it is found and the progress as runs finish, so a scan that dies
 * half-way keeps what it found. A scan in which a login failed ran every template but not as it was
 * asked to (requests in that login's scope were not sent): it fails, saying which and why, and keeps
 * what it found elsewhere.
 */
export async function executeScan(plan: ScanPlan, settings: ScanSettings): Promise<ScanOutcome> {
  const { recorder, stats } = settings;
  try {
    await recorder.start({ ...settings.describe, targets: plan.targets, totalRuns: plannedRuns(plan) });
  } catch (error) {
    stats.stop();
    return { outcome: 'failed', failure: `the scan could not be recorded: ${messageOf(error)}` };
  }
  const listener = settings.listener;
  let aborted: boolean;
  try {
    ({ aborted } = await runScan(plan, {
      ...settings,
      listener: {
        onEvent: (event) => {
          if (event['matcher-status']) recorder.finding(event);
          listener.onEvent?.(event);
        },
        onProblem: (problem) => listener.onProblem?.(problem),
        onRunDone: (run) => {
          recorder.runDone(run);
          recorder.progress({ runsDone: stats.runsDone, runsTotal: stats.runsTotal, percent: stats.percent });
          listener.onRunDone?.(run);
        },
      },
    }));
  } catch (error) {
    stats.stop();
    const failure = `the scan stopped on an internal error: ${messageOf(error)}`;
    await recorder.fail(failure).catch(() => undefined);
    return { outcome: 'failed', failure };
  }
  stats.stop();
  const ledger = settings.ledger;
  const failedLogins = ledger === undefined ? undefined : authenticationFailure(ledger.figures());
  try {
    // The store keeps figures per secret-file entry: a scan with only `-H` credentials has none.
    const figures = ledger?.figures();
    if (figures !== undefined && figures.entries.length > 0) recorder.authentication(figures);
    if (aborted) await recorder.fail(INTERRUPTED);
    else if (failedLogins !== undefined) await recorder.fail(failedLogins);
    else await recorder.finish();
  } catch (error) {
    return { outcome: 'failed', failure: `the scan could not be recorded: ${messageOf(error)}` };
  }
  if (aborted) return { outcome: 'interrupted' };
  return failedLogins === undefined ? { outcome: 'finished' } : { outcome: 'failed', failure: failedLogins };
}

/**
 * Why a scan (or a worker's chunk) that ran every template was still not the one asked for: an
 * entry's login failed (`authentication failed: dynamic[0] of s.yaml: why; 6 requests in its scope
 * were not sent`), or the target refused an entry's secret on every answer it gave to a request
 * that carried it (a static secret that is wrong or expired; a login that worked but whose session
 * the target does not take).
 */
export function authenticationFailure(figures: AuthFigures): string | undefined {
  const failed = figures.entries.filter((e) => e.failure !== undefined || refusedEverywhere(e));
  const each = failed.map((e) => (e.failure === undefined ? rejection(e) : loginFailure(e, e.failure)));
  const headers = figures.headers;
  if (headers !== undefined && refusedEverywhere(headers)) each.push(headersRejection(headers));
  return each.length === 0 ? undefined : `authentication failed: ${each.join('; ')}`;
}

function loginFailure(e: EntryFigures, failure: string): string {
  if (e.refused === 0) return `${e.entry.label}: ${failure}`;
  const refused = e.refused === 1 ? '1 request' : `${e.refused} requests`;
  return `${e.entry.label}: ${failure}; ${refused} in its scope ${e.refused === 1 ? 'was' : 'were'} not sent`;
}

/** Every answer to the entry's requests refused its secret (and there was at least one). */
function refusedEverywhere(e: Pick<EntryFigures, 'answered' | 'rejected'>): boolean {
  return e.answered > 0 && e.rejected.unauthorized + e.rejected.loginPage === e.answered;
}

/** `static[0] of s.yaml: the target refused its secret on all 5 requests that carried it (…)`. */
export function rejection(e: Pick<EntryFigures, 'entry' | 'answered' | 'rejected'>): string {
  const all = e.answered === 1 ? 'the 1 request' : `all ${e.answered} requests`;
  return `${e.entry.label}: the target refused its secret on ${all} that carried it (${rejectionCauses(e.rejected)}): the secret is probably wrong or expired, or not the kind this target takes`;
}

/**
 * The entries whose every answer was 403 Forbidden (at least one answer, none refused otherwise,
 * no failed login): not failed, since a working secret meets 403 on what its user may not see,
 * but an API that refuses a wrong key with 403 looks exactly like this, so the scan says so.
 */
export function forbiddenEverywhere(figures: AuthFigures): EntryFigures[] {
  return figures.entries.filter(
    (e) =>
      e.answered > 0 &&
      e.forbidden === e.answered &&
      e.failure === undefined &&
      e.rejected.unauthorized + e.rejected.loginPage === 0,
  );
}

/**
 * `static[0] of s.yaml: the target answered 403 Forbidden to all 5 requests that carried its
 * secret: …` (see `forbiddenEverywhere`).
 */
export function forbiddenWarning(e: Pick<EntryFigures, 'entry' | 'answered'>): string {
  const all = e.answered === 1 ? 'the 1 request' : `all ${e.answered} requests`;
  return `${e.entry.label}: the target answered 403 Forbidden to ${all} that carried its secret: if it refuses a wrong or expired secret with 403, this scan was not authenticated; add verify: to the entry to check the secret before scanning`;
}

/** `-H Authorization: the target refused it on all 5 requests that carried it (…)`. */
function headersRejection(h: HeaderFigures): string {
  const all = h.answered === 1 ? 'the 1 request' : `all ${h.answered} requests`;
  return `${h.label}: the target refused it on ${all} that carried it (${rejectionCauses(h.rejected)}): the credential is probably wrong or expired`;
}

/** `401 Unauthorized` / `5 answered 401 Unauthorized, 2 redirected to a login page`. */
export function rejectionCauses(rejected: RejectionCounts): string {
  const { unauthorized, loginPage } = rejected;
  if (loginPage === 0) return '401 Unauthorized';
  if (unauthorized === 0) return 'redirected to a login page';
  return `${unauthorized} answered 401 Unauthorized, ${loginPage} redirected to a login page`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
