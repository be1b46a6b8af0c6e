/**
 * What `keyhole retest` prints: a line per retested finding on stdout (or, with `-j`, the recorded
 * retest result as one JSON line, with the field names of `GET /v1/retest`), and a summary on
 * stderr.
 */
import pc from 'picocolors';
import { serializeEvent } from '../../../event/index.js';
import { formatElapsed } from '../../../output/index.js';
import type { RetestOutcome } from '../../../retest/index.js';
import { printable, quote } from '../../../source/index.js';
import {
  formatTimestamp,
  isTriagedByHand,
  type RetestResult,
  type VulnStatus,
} from '../../../store/index.js';

type Colours = ReturnType<typeof pc.createColors>;

/**
 * `[vuln_id] template-id target → matched | not matched (fixed) | error: reason`, with `(kept
 * false_positive)` instead of `(fixed)` or after `matched` when the finding's status was set by hand
 * and so stays as it was. The finding may come from an imported file and the reason quote a
 * response, so what they say is made printable.
 */
export function retestLine(outcome: RetestOutcome, status: VulnStatus, colour: boolean): string {
  const c = pc.createColors(colour);
  const { finding } = outcome;
  const head = `[${c.dim(finding.id)}] ${c.greenBright(printable(finding.templateId))} ${printable(outcome.target)} → `;
  return `${head}${verdictText(outcome, status, c)}`;
}

function verdictText(outcome: RetestOutcome, status: VulnStatus, c: Colours): string {
  const { verdict } = outcome;
  const kept = isTriagedByHand(status) ? ` (kept ${status})` : '';
  switch (verdict.resultType) {
    case 'matched': {
      if (verdict.same) return `${c.red('matched')}${kept}`;
      const where = printable(verdict.match['matched-at'] ?? '');
      const values = verdict.match['extracted-results'] ?? [];
      const shown = values.length === 0 ? '' : ` [${values.map(quote).join(',')}]`;
      return `${c.red('matched')} (now ${where}${shown})${kept}`;
    }
    case 'not_matched':
      return kept === '' ? c.green('not matched (fixed)') : `${c.green('not matched')}${kept}`;
    case 'error':
      return `${c.yellow('error')}: ${printable(verdict.reason)}`;
  }
}

/** A recorded retest result as one JSON line: the fields and names of `GET /v1/retest`. */
export function retestJson(result: RetestResult): string {
  return JSON.stringify({
    matcher_status: result.matcherStatus,
    vuln_id: result.vulnId,
    target: result.target,
    template_url: result.templateUrl,
    created_at: formatTimestamp(result.createdAt),
    updated_at: formatTimestamp(result.updatedAt),
    scan_id: result.scanId,
    event: result.events.map((event) => JSON.parse(serializeEvent(event)) as unknown),
    template_id: result.templateId,
    template_path: result.templatePath,
    template_encoded: result.templateEncoded,
    result_type: result.resultType,
    vuln_status: result.vulnStatus,
  });
}

export interface RetestTally {
  matched: number;
  notMatched: number;
  errors: number;
  /** Findings matched or not whose status, set by hand, the retest kept. */
  keptTriage: number;
}

export interface RetestSummary {
  readonly outcome: 'finished' | 'interrupted' | 'failed';
  readonly findings: number;
  readonly tally: RetestTally;
  readonly requests: number;
  readonly elapsedMs: number;
}

export function formatRetestSummary(summary: RetestSummary): string {
  const { tally } = summary;
  const done = tally.matched + tally.notMatched + tally.errors;
  const elapsed = formatElapsed(summary.elapsedMs);
  const heading =
    summary.outcome === 'finished'
      ? `retest finished in ${elapsed}`
      : `retest ${summary.outcome} after ${elapsed}: ${done} of ${summary.findings} findings retested`;
  const moved = tally.keptTriage === 0 ? '' : ' unless triaged';
  const rows: [string, string][] = [
    ['findings', String(summary.findings)],
    ['matched', `${tally.matched}${tally.matched > 0 ? ` (open${moved})` : ''}`],
    ['not matched', `${tally.notMatched}${tally.notMatched > 0 ? ` (fixed${moved})` : ''}`],
    ['errors', `${tally.errors}${tally.errors > 0 ? ' (status unchanged)' : ''}`],
    ...(tally.keptTriage === 0
      ? []
      : [['triaged', `${tally.keptTriage} (status set by hand, unchanged)`] as [string, string]]),
    ['requests', String(summary.requests)],
  ];
  return `${heading}\n${rows.map(([name, value]) => `  ${name.padEnd(11)} ${value}\n`).join('')}`;
}
