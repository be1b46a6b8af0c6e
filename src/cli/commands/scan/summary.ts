/** The summary a scan ends with, from what its stats and its ledger counted. */
import type { AuthSummary, HeaderCredentials, ScanSummary, SkippedHosts } from '../../../output/index.js';
import type { AuthFigures, ScanPlan, ScanStats } from '../../../scan/index.js';

export function summaryOf(
  outcome: 'finished' | 'interrupted' | 'failed',
  stats: ScanStats,
  plan: ScanPlan,
  skipped: { readonly unsupported: number; readonly broken: number },
  authentication: AuthSummary | undefined,
  skippedHosts: SkippedHosts,
  headers?: HeaderCredentials,
): ScanSummary {
  return {
    ...(headers === undefined ? {} : { headerCredentials: headers }),
    skippedHosts,
    ...(authentication === undefined ? {} : { authentication }),
    outcome,
    targets: plan.targets.length,
    templates: plan.templates.length,
    unsupportedTemplates: skipped.unsupported,
    brokenTemplates: skipped.broken,
    runsDone: stats.runsDone,
    runsTotal: stats.runsTotal,
    requests: stats.requests,
    findings: stats.findings,
    errors: stats.errors,
    unresolvedRequests: stats.unresolvedRequests,
    elapsedMs: stats.elapsedMs,
  };
}

/** The ledger's figures as the summary shows them. */
export function authSummary(figures: AuthFigures): AuthSummary {
  return {
    requests: figures.requests,
    authenticated: figures.authenticated,
    entries: figures.entries.map(({ entry, ...counts }) => ({ label: entry.label, ...counts })),
  };
}
