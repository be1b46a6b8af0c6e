/**
 * A finding as one JSONL line: nuclei's result-event shape (docs/cli.md#jsonl-events), so that
 * nuclei's files import into keyhole and keyhole's output feeds tools that read nuclei's. Key names,
 * optional keys and `null` lists follow nuclei's serialisation.
 */
export interface ResultEvent {
  'template-id': string;
  'template-path'?: string;
  'template-url'?: string;
  info: EventInfo;
  'matcher-name'?: string;
  'extractor-name'?: string;
  /** Protocol of the template; keyhole runs `http` templates. */
  type: string;
  host?: string;
  port?: string;
  scheme?: string;
  url?: string;
  path?: string;
  'matched-at'?: string;
  'extracted-results'?: string[];
  request?: string;
  response?: string;
  /**
   * keyhole's own: the response's body was longer than its body limit and was cut there, so the
   * matchers saw only its first bytes (nuclei cuts the same way without saying so).
   */
  'response-truncated'?: boolean;
  /** The payload values used for this request. */
  meta?: Record<string, unknown>;
  ip?: string;
  /** RFC 3339. */
  timestamp: string;
  /** The out-of-band callback that made the finding (interactsh's interaction). */
  interaction?: EventInteraction;
  'curl-command'?: string;
  'matcher-status': boolean;
  'matched-line'?: number[];
  /** Why the run could not be made (matcher-status mode: a request failed, a retest could not decide). */
  error?: string;
}

/** An out-of-band callback as nuclei writes it in the event's `interaction` field. */
export interface EventInteraction {
  protocol: string;
  'unique-id': string;
  'full-id': string;
  'q-type'?: string;
  'raw-request'?: string;
  'raw-response'?: string;
  'smtp-from'?: string;
  'remote-address': string;
  timestamp: string;
}

export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

export interface EventInfo {
  name?: string;
  /** Lower-cased, as nuclei emits them; `null` when the template has none. */
  author: string[] | null;
  tags: string[] | null;
  description?: string;
  impact?: string;
  reference?: string[];
  /** One of {@link SEVERITIES}, or "" when the template gives none. */
  severity: Severity | '';
  metadata?: Record<string, unknown>;
  classification?: Classification;
  remediation?: string;
}

export interface Classification {
  /** Lower-cased (`cve-2021-44228`); `null` when absent, as nuclei emits it. */
  'cve-id': string[] | null;
  'cwe-id': string[] | null;
  'cvss-metrics'?: string;
  'cvss-score'?: number;
  'epss-score'?: number;
  'epss-percentile'?: number;
  cpe?: string;
}
