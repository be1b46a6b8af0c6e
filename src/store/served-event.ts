import type { ResultEvent } from '../event/index.js';
import type { ServedRetest } from './model.js';
import { type EpochMs, formatTimestamp } from './time.js';

type Loose = Record<string, unknown>;

/**
 * A result event as the API serves it: every field of docs/store-and-api.md#event-records present
 * with its type (nuclei omits empty ones and writes absent lists as null; the API gives "", [], 0
 * and false), and the other keys nuclei writes kept as they are.
 */
export function servedEvent(event: ResultEvent): Loose {
  const e = event as unknown as Loose;
  const info = (isObject(e.info) ? e.info : {}) as Loose;
  const c = (isObject(info.classification) ? info.classification : {}) as Loose;
  return {
    ...e,
    'curl-command': str(e['curl-command']),
    'extracted-results': strs(e['extracted-results']),
    'extractor-name': str(e['extractor-name']),
    host: str(e.host),
    info: {
      ...info,
      classification: {
        ...c,
        cpe: str(c.cpe),
        'cve-id': strs(c['cve-id']),
        'cvss-metrics': str(c['cvss-metrics']),
        'cvss-score': num(c['cvss-score']),
        'cwe-id': strs(c['cwe-id']),
        'epss-percentile': num(c['epss-percentile']),
        'epss-score': num(c['epss-score']),
      },
      metadata: isObject(info.metadata) ? info.metadata : {},
      author: strs(info.author),
      description: str(info.description),
      impact: str(info.impact),
      name: str(info.name),
      tags: strs(info.tags),
      reference: strs(info.reference),
      remediation: str(info.remediation),
      severity: str(info.severity) || 'unknown',
    },
    ip: str(e.ip),
    'matched-at': str(e['matched-at']),
    'matched-line': Array.isArray(e['matched-line']) ? e['matched-line'].filter(Number.isInteger) : [],
    'matcher-name': str(e['matcher-name']),
    'matcher-status': e['matcher-status'] === true,
    path: str(e.path),
    request: str(e.request),
    response: str(e.response),
    'template-id': str(e['template-id']),
    'template-path': str(e['template-path']),
    timestamp: str(e.timestamp),
    type: str(e.type),
  };
}

/**
 * The events of a retest as the JSON array the API serves, written once when the retest is
 * recorded: a page of results is then spliced together instead of parsing and re-serialising
 * every event (a result's events never change).
 */
export function servedEventsJson(events: readonly ResultEvent[]): string {
  return JSON.stringify(events.map(servedEvent));
}

/**
 * The members of a finding's listing item that come from its stored event, as JSON text in the
 * item's order: `"description":…,"impact":…,"remediation":…,"reference":[…],"labels":[],"event":[…]`.
 * Written once when the finding is recorded (its event never changes), spliced into every page.
 */
export function servedFindingFields(event: ResultEvent): string {
  const served = servedEvent(event);
  const info = served.info as Loose;
  return `"description":${JSON.stringify(info.description)},"impact":${JSON.stringify(info.impact)},"remediation":${JSON.stringify(info.remediation)},"reference":${JSON.stringify(info.reference)},"labels":[],"event":[${JSON.stringify(served)}]`;
}

/** What a finding's served head is written from: its columns that never change. */
export interface FindingHeadSource {
  readonly id: string;
  readonly target: string;
  readonly template_url: string;
  readonly created_at: EpochMs;
  readonly scan_id: string;
  readonly template_id: string;
  readonly template_path: string;
  readonly vuln_hash: string;
  readonly severity: string;
}

/**
 * Between the pieces of a served head: a character no JSON text written by `JSON.stringify` holds
 * outside an escape (control characters are written `\u0001`), so the pieces split back exactly.
 */
const HEAD_SEPARATOR = '\u0001';

/**
 * The members of a finding's listing item that never change, as the API serves them, in the
 * three pieces that surround the members that do (`updated_at`, `template_encoded` and
 * `vuln_status`, which triage moves and the template's text, kept once in `template_source`):
 * `{"matcher_status":true,…,"updated_at":"` · `","scan_id":…,"template_encoded":` ·
 * `,"vuln_hash":…,"severity":…,`. Written once when the finding is recorded, and joined with
 * those members and its {@link servedFindingFields} by {@link servedFindingItems}.
 */
export function servedFindingHead(f: FindingHeadSource): string {
  return [
    `{"matcher_status":true,"vuln_id":${JSON.stringify(f.id)},"target":${JSON.stringify(f.target)},"template_url":${JSON.stringify(f.template_url)},"created_at":"${formatTimestamp(f.created_at)}","updated_at":"`,
    `","scan_id":${JSON.stringify(f.scan_id)},"template_id":${JSON.stringify(f.template_id)},"template_path":${JSON.stringify(f.template_path)},"template_encoded":`,
    `,"vuln_hash":${JSON.stringify(f.vuln_hash)},"severity":${JSON.stringify(f.severity)},`,
  ].join(HEAD_SEPARATOR);
}

/** A finding as a page reads it when it has its served head (see {@link servedFindingItems}). */
export interface HeadedFinding {
  readonly head: string;
  readonly fields: string;
  readonly updatedAt: EpochMs;
  readonly templateEncoded: string;
  readonly vulnStatus: string;
}

/**
 * Findings' listing items joined by commas, as `/v1/scans/results` lists them: each its
 * {@link servedFindingHead}'s pieces around its update time, template text (quoted once a page)
 * and status, then its served fields. The same text, byte for byte, as the API writes from a
 * finding's columns.
 */
export function servedFindingItems(findings: readonly HeadedFinding[]): string {
  const quote = quoter();
  return findings
    .map((f) => {
      const [opening, middle, closing] = f.head.split(HEAD_SEPARATOR);
      return `${opening}${formatTimestamp(f.updatedAt)}${middle}${quote(f.templateEncoded)},"vuln_status":${JSON.stringify(f.vulnStatus)}${closing}${f.fields},"result_type":"matched"}`;
    })
    .join(',');
}

/** `JSON.stringify` for a page's texts, each text quoted once however many items repeat it. */
function quoter(): (text: string) => string {
  const quoted = new Map<string, string>();
  return (text) => {
    let json = quoted.get(text);
    if (json === undefined) {
      json = JSON.stringify(text);
      quoted.set(text, json);
    }
    return json;
  };
}

/** What a retest result's served fields are written from. */
export interface RetestFieldsSource {
  readonly matcherStatus: boolean;
  readonly vulnId: string;
  readonly target: string;
  readonly templateUrl: string;
  readonly createdAt: EpochMs;
  readonly updatedAt: EpochMs;
  readonly scanId: string;
  /** Its events as {@link servedEventsJson} writes them. */
  readonly eventsJson: string;
  readonly templateId: string;
  readonly templatePath: string;
}

/**
 * The members of a retest result's listing item up to its template, as JSON text in the item's
 * order: `"matcher_status":…,"vuln_id":…,…,"event":[…],"template_id":…,"template_path":…`.
 * Written once when the result is recorded (nothing in them ever changes), so that a page is the
 * kept texts joined by {@link servedRetestItem} rather than rows decoded and serialised again.
 */
export function servedRetestFields(r: RetestFieldsSource): string {
  return `"matcher_status":${r.matcherStatus},"vuln_id":${JSON.stringify(r.vulnId)},"target":${JSON.stringify(r.target)},"template_url":${JSON.stringify(r.templateUrl)},"created_at":"${formatTimestamp(r.createdAt)}","updated_at":"${formatTimestamp(r.updatedAt)}","scan_id":${JSON.stringify(r.scanId)},"event":${r.eventsJson},"template_id":${JSON.stringify(r.templateId)},"template_path":${JSON.stringify(r.templatePath)}`;
}

/**
 * A retest result's listing item: its {@link servedRetestFields}, then its template's text
 * (`templateJson`, already a JSON string: a page quotes each template once), result type and status.
 */
function servedRetestItem(
  fields: string,
  templateJson: string,
  resultType: string,
  vulnStatus: string,
): string {
  return `{${fields},"template_encoded":${templateJson},"result_type":${JSON.stringify(resultType)},"vuln_status":${JSON.stringify(vulnStatus)}}`;
}

/** Retest results' listing items joined by commas, each template's text quoted once for the page. */
export function servedRetestItems(results: readonly ServedRetest[]): string {
  const quote = quoter();
  return results
    .map((r) => servedRetestItem(r.fields, quote(r.templateEncoded), r.resultType, r.vulnStatus))
    .join(',');
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strs(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
