/** Findings as CSV (`findings export --format csv`): one row per finding, RFC 4180 quoting. */
import type { ResultEvent } from '../event/index.js';
import { matchedUrl } from './titles.js';

/** What a row says beyond the event: the store's id and triage status of the finding. */
export interface CsvFinding {
  readonly id: string;
  readonly status: string;
  readonly event: ResultEvent;
}

const HEADER = [
  'vuln_id',
  'status',
  'template_id',
  'name',
  'severity',
  'host',
  'matched_at',
  'matcher_name',
  'extractor_name',
  'extracted_results',
  'cve_id',
  'cwe_id',
  'timestamp',
];

export function csvExport(findings: readonly CsvFinding[]): string {
  return [HEADER, ...findings.map(csvRow)].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

function csvRow({ id, status, event }: CsvFinding): string[] {
  const classification = event.info.classification;
  return [
    id,
    status,
    event['template-id'],
    event.info.name ?? '',
    event.info.severity,
    event.host ?? '',
    matchedUrl(event),
    event['matcher-name'] ?? '',
    event['extractor-name'] ?? '',
    (event['extracted-results'] ?? []).join('; '),
    (classification?.['cve-id'] ?? []).join('; '),
    (classification?.['cwe-id'] ?? []).join('; '),
    event.timestamp,
  ];
}

/**
 * A field quoted when it needs to be; a field a spreadsheet would run as a formula (=, +, -, @) is
 * led by a quote mark, since matched URLs and extracted values come from the scanned hosts.
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
