import { SEVERITIES, type Severity } from '../event/index.js';

/** Running figures of a scan: what the progress bar, the recorder and the summary read. */
export class ScanStats {
  private readonly startedAt = performance.now();
  private stoppedAt: number | undefined;
  /** Requests put on the wire (redirect hops, retries, probes and logins included). */
  requests = 0;
  /** Template runs finished (one template against one target). */
  runsDone = 0;
  /** Requests not sent because a `{{…}}` of theirs could not be evaluated (a missing variable, a helper's error). */
  unresolvedRequests = 0;
  /** Errors reported: failed requests, unreachable targets, failed logins, internal errors. */
  errors = 0;
  /** Responses matched on a body cut at its limit: how many, per limit in bytes. */
  readonly truncatedBodies = new Map<number, number>();
  readonly findings: Record<Severity, number> = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<
    Severity,
    number
  >;

  constructor(readonly runsTotal: number) {}

  finding(severity: Severity | ''): void {
    this.findings[severity === '' ? 'unknown' : severity]++;
  }

  truncated(limit: number): void {
    this.truncatedBodies.set(limit, (this.truncatedBodies.get(limit) ?? 0) + 1);
  }

  get findingCount(): number {
    return SEVERITIES.reduce((sum, s) => sum + this.findings[s], 0);
  }

  /** Freezes the elapsed time (the scan is over). */
  stop(): void {
    this.stoppedAt ??= performance.now();
  }

  get elapsedMs(): number {
    return (this.stoppedAt ?? performance.now()) - this.startedAt;
  }

  /** Whole percent of the planned runs done (100 for a scan with nothing to run). */
  get percent(): number {
    return this.runsTotal === 0 ? 100 : Math.floor((this.runsDone / this.runsTotal) * 100);
  }
}
