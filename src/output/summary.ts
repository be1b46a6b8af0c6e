import { SEVERITIES, type Severity } from '../event/index.js';

/** The figures of a scan, as its summary shows them. */
export interface ScanSummary {
  /** `finished`: every template run done; `interrupted`: stopped by the user; `failed`: stopped by an error. */
  readonly outcome: 'finished' | 'interrupted' | 'failed';
  readonly targets: number;
  readonly templates: number;
  /** Templates skipped because they use something keyhole does not run yet. */
  readonly unsupportedTemplates: number;
  /** Templates of folders skipped because they have errors. */
  readonly brokenTemplates?: number;
  /** Template runs (one template against one target) finished, and planned. */
  readonly runsDone: number;
  readonly runsTotal: number;
  readonly requests: number;
  readonly findings: Readonly<Record<Severity, number>>;
  readonly errors: number;
  /** Requests not sent because a `{{…}}` of theirs could not be evaluated. */
  readonly unresolvedRequests?: number;
  /** Hosts given up on (`-mhe`), and their requests that were not sent. */
  readonly skippedHosts?: SkippedHosts;
  readonly elapsedMs: number;
  /** With secret files: how many of the templates' requests carried a secret, and what each entry did. */
  readonly authentication?: AuthSummary;
  /** With credential headers given with `-H`: the answers to the requests that carried them. */
  readonly headerCredentials?: HeaderCredentials;
}

export interface HeaderCredentials {
  /** `-H Authorization`. */
  readonly label: string;
  readonly answered: number;
  readonly rejected: EntrySummary['rejected'];
}

export interface SkippedHosts {
  readonly hosts: number;
  readonly requestsNotSent: number;
}

export interface AuthSummary {
  readonly requests: number;
  readonly authenticated: number;
  readonly entries: readonly EntrySummary[];
}

export interface EntrySummary {
  /** `dynamic[0] of secrets.yaml`. */
  readonly label: string;
  readonly requests: number;
  /** Requests in its scope not sent, because its login failed. */
  readonly refused: number;
  /** Answers by which the target refused its secret: 401s, and redirects to a login page. */
  readonly rejected: { readonly unauthorized: number; readonly loginPage: number };
  /** Answers with status 403 (not refusals: see the scan's warning when they are all there is). */
  readonly forbidden?: number;
  readonly logins: number;
  readonly loginFailures: number;
  readonly relogins: number;
}

/** The summary printed at the end of a scan (several lines, each ending in a newline). */
export function formatSummary(summary: ScanSummary): string {
  const elapsed = formatElapsed(summary.elapsedMs);
  const heading =
    summary.outcome === 'finished'
      ? `scan finished in ${elapsed}`
      : `scan ${summary.outcome} after ${elapsed}: ${summary.runsDone} of ${summary.runsTotal} template runs done`;
  const skipped = [
    summary.unsupportedTemplates === 0 ? '' : `+${summary.unsupportedTemplates} unsupported`,
    (summary.brokenTemplates ?? 0) === 0 ? '' : `+${summary.brokenTemplates} with errors`,
  ].filter((part) => part !== '');
  const unsupported = skipped.length === 0 ? '' : ` (${skipped.join(', ')}, skipped)`;
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? ` (${formatRate(summary.requests / seconds)}/s)` : '';
  const rows: [string, string][] = [
    ['targets', String(summary.targets)],
    ['templates', `${summary.templates}${unsupported}`],
    ['requests', `${summary.requests}${rate}`],
  ];
  const auth = summary.authentication;
  if (auth !== undefined) rows.push(['authenticated', formatAuthenticated(auth)]);
  const headers = summary.headerCredentials;
  if (headers !== undefined && headers.answered > 0) rows.push(['credentials', formatHeaders(headers)]);
  const entries = auth === undefined ? '' : formatEntries(auth.entries);
  const after: [string, string][] = [
    ['findings', formatFindings(summary.findings)],
    ['errors', String(summary.errors)],
  ];
  const unresolved = summary.unresolvedRequests ?? 0;
  if (unresolved > 0)
    after.push([
      'not sent',
      `${plural(unresolved, 'request')}: a {{…}} could not be evaluated (warned above)`,
    ]);
  const hosts = summary.skippedHosts;
  if (hosts !== undefined && hosts.hosts > 0)
    after.push([
      'hosts skipped',
      `${hosts.hosts} (unresponsive; ${plural(hosts.requestsNotSent, 'request')} not sent)`,
    ]);
  const lines = (list: [string, string][]) =>
    list.map(([name, value]) => `  ${name.padEnd(14)} ${value}\n`).join('');
  return `${heading}\n${lines(rows)}${entries}${lines(after)}`;
}

/**
 * `5 of 6 requests`; requests whose secret the target refused are not counted as authenticated:
 * `0 of 6 requests (5 more carried a secret the target refused)`.
 */
function formatAuthenticated(auth: AuthSummary): string {
  const rejected = auth.entries.reduce((sum, e) => sum + rejectedCount(e), 0);
  const of = `${auth.authenticated - rejected} of ${plural(auth.requests, 'request')}`;
  return rejected === 0 ? of : `${of} (${rejected} more carried a secret the target refused)`;
}

/** `-H Authorization on 5 requests, 5 refused by the target (401)`. */
function formatHeaders(headers: HeaderCredentials): string {
  const on = `${headers.label} on ${plural(headers.answered, 'request')}`;
  const rejected = headers.rejected.unauthorized + headers.rejected.loginPage;
  return rejected === 0
    ? on
    : `${on}, ${rejected} refused by the target (${formatRejections(headers.rejected)})`;
}

function rejectedCount(entry: Pick<EntrySummary, 'rejected'>): number {
  return entry.rejected.unauthorized + entry.rejected.loginPage;
}

/** One line per entry under `authenticated`: its requests, refusals and logins. */
function formatEntries(entries: readonly EntrySummary[]): string {
  const width = Math.max(0, ...entries.map((e) => e.label.length));
  return entries
    .map((entry) => {
      const parts = [plural(entry.requests, 'request')];
      if (entry.refused > 0) parts.push(`${entry.refused} not sent`);
      const rejected = rejectedCount(entry);
      if (rejected > 0) parts.push(`${rejected} refused by the target (${formatRejections(entry.rejected)})`);
      const forbidden = entry.forbidden ?? 0;
      if (forbidden > 0) parts.push(`${forbidden} answered 403`);
      const logins = formatLogins(entry);
      return `    ${entry.label.padEnd(width)}  ${parts.join(', ')}${logins === '' ? '' : `; ${logins}`}\n`;
    })
    .join('');
}

function formatRejections({ unauthorized, loginPage }: EntrySummary['rejected']): string {
  if (loginPage === 0) return '401';
  if (unauthorized === 0) return 'sent to a login page';
  return `${unauthorized} 401, ${loginPage} sent to a login page`;
}

function formatLogins(entry: EntrySummary): string {
  if (entry.logins === 0) return '';
  const failed = entry.loginFailures === 0 ? '' : `, ${entry.loginFailures} failed`;
  const again = entry.relogins === 0 ? '' : ` (${plural(entry.relogins, 're-login')})`;
  return `${plural(entry.logins, 'login')}${failed}${again}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The note a scan ends with when responses were matched on a body cut at its limit (per limit in
 * bytes, how many), or undefined when none was.
 */
export function formatTruncatedBodies(counts: ReadonlyMap<number, number>): string | undefined {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return undefined;
  const [only] = counts.keys();
  const where =
    counts.size === 1
      ? `at ${only} bytes, ${total === 1 ? 'its' : 'their'} body limit`
      : `at their body limit (${[...counts]
          .sort(([a], [b]) => b - a)
          .map(([limit, n]) => `${n} at ${limit} bytes`)
          .join(', ')})`;
  const them = total === 1 ? 'it' : 'them';
  return `${total} ${total === 1 ? 'response was' : 'responses were'} cut ${where}: matchers saw only those bytes, and findings on ${them} carry "response-truncated": true (a template's max-size sets the limit)`;
}

/** `0`, or `4: 1 high, 3 info` (most severe first). */
export function formatFindings(findings: Readonly<Record<Severity, number>>): string {
  const order: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
  const total = SEVERITIES.reduce((sum, s) => sum + findings[s], 0);
  const parts = order.filter((s) => findings[s] > 0).map((s) => `${findings[s]} ${s}`);
  return parts.length === 0 ? String(total) : `${total}: ${parts.join(', ')}`;
}

/** `850ms`, `12.3s`, `2m5s`, `1h2m3s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const total = Math.round(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return `${hours > 0 ? `${hours}h` : ''}${minutes}m${seconds}s`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 10 ? String(Math.round(perSecond)) : perSecond.toFixed(1);
}
