import type { ScanRecorder, ScanStart } from './recorder.js';
import { plannedRuns, runScan, type ScanPlan, type ScanRunSettings } from './run.js';

export interface ScanSettings extends ScanRunSettings {
  readonly recorder: ScanRecorder;
  readonly describe: Pick<ScanStart, 'name' | 'templates' | 'assetIds' | 'rescanOf'>;
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
 * half-way keeps what it found.
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
        onRunDone: () => {
          recorder.progress({ runsDone: stats.runsDone, runsTotal: stats.runsTotal, percent: stats.percent });
          listener.onRunDone?.();
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
  try {
    if (aborted) await recorder.fail(INTERRUPTED);
    else await recorder.finish();
  } catch (error) {
    return { outcome: 'failed', failure: `the scan could not be recorded: ${messageOf(error)}` };
  }
  return { outcome: aborted ? 'interrupted' : 'finished' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
