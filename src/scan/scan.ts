import type { AuthFigures, AuthLedger } from './auth-ledger.js';
import type { ScanRecorder, ScanStart } from './recorder.js';
import { plannedRuns, runScan, type ScanPlan, type ScanRunSettings } from './run-scan.js';

export interface ScanSettings extends ScanRunSettings {
  readonly recorder: ScanRecorder;
  readonly describe: Pick<ScanStart, 'name' | 'templates' | 'assetIds' | 'rescanOf'>;
  /**
   * The scan's authentication, recorded with it; a failed login fails the scan. A session shared by
   * several scans gives the figures since this scan began.
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
    if (ledger !== undefined) recorder.authentication(ledger.figures());
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
 * Why a scan (or a worker's chunk) that ran every template was still not the one asked for:
 * `authentication failed: dynamic[0] of s.yaml: why; 6 requests in its scope were not sent`.
 */
export function authenticationFailure(figures: AuthFigures): string | undefined {
  const failed = figures.entries.filter((e) => e.failure !== undefined);
  if (failed.length === 0) return undefined;
  const each = failed.map((e) => {
    if (e.refused === 0) return `${e.entry.label}: ${e.failure}`;
    const refused = e.refused === 1 ? '1 request' : `${e.refused} requests`;
    return `${e.entry.label}: ${e.failure}; ${refused} in its scope ${e.refused === 1 ? 'was' : 'were'} not sent`;
  });
  return `authentication failed: ${each.join('; ')}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
