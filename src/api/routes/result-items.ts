import type { Finding, ServedFinding } from '../../store/index.js';
import { formatTimestamp, servedFindingHead, servedFindingItems } from '../../store/index.js';
import { eventRecord } from '../serialize.js';
import { type JsonText, jsonList } from './page.js';
import type { ResultItem, ResultsResponse, VulnResponse } from './results-schemas.js';

/** The fields a finding shows in a listing and on its own, from the finding and its event's info. */
function findingFields(finding: Finding) {
  const info = finding.event.info;
  return {
    matcher_status: true,
    vuln_id: finding.id,
    target: finding.target,
    template_url: finding.templateUrl,
    created_at: formatTimestamp(finding.createdAt),
    updated_at: formatTimestamp(finding.updatedAt),
    scan_id: finding.scanId,
    template_id: finding.templateId,
    template_path: finding.templatePath,
    template_encoded: finding.templateEncoded,
    vuln_status: finding.vulnStatus,
    vuln_hash: finding.vulnHash,
    severity: finding.severity,
    description: text(info?.description),
    impact: text(info?.impact),
    remediation: text(info?.remediation),
    reference: Array.isArray(info?.reference) ? info.reference.filter((r) => typeof r === 'string') : [],
    labels: [],
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A finding as `/v1/scans/results` lists it: its one event in a list, as PD's `VulnerabilityResults`. */
export function resultItem(finding: Finding): ResultItem {
  return { ...findingFields(finding), event: [eventRecord(finding.event)], result_type: 'matched' };
}

/** A finding as `/v1/scans/vuln/{vuln_id}` shows it: its event on its own (PD's `VulnerabilityResultsOld`). */
export function vulnResponse(finding: Finding): VulnResponse {
  return { ...findingFields(finding), id: finding.id, event: eventRecord(finding.event) };
}

export function resultsPage(
  findings: readonly Finding[],
  total: number,
  window: { offset: number; limit: number },
): ResultsResponse {
  return {
    current_page: Math.floor(window.offset / window.limit) + 1,
    result_count: findings.length,
    total_results: total,
    total_pages: Math.ceil(total / window.limit),
    message: 'Successfully retrieved results',
    data: findings.map(resultItem),
  };
}

/**
 * A results page as JSON text: {@link resultsPage}'s members in its order, each finding's item
 * written by the store's writer of kept items (`servedFindingHead`, `servedFindingItems`, what
 * PostgreSQL's pages join), its event members spliced in as stored (never parsed for a page).
 */
export function resultsPageText(
  findings: readonly ServedFinding[],
  total: number,
  window: { offset: number; limit: number },
): string {
  const items = servedFindingItems(
    findings.map((f) => ({
      head: servedFindingHead({
        id: f.id,
        target: f.target,
        template_url: f.templateUrl,
        created_at: f.createdAt,
        scan_id: f.scanId,
        template_id: f.templateId,
        template_path: f.templatePath,
        vuln_hash: f.vulnHash,
        severity: f.severity,
      }),
      fields: f.servedFields,
      updatedAt: f.updatedAt,
      templateEncoded: f.templateEncoded,
      vulnStatus: f.vulnStatus,
    })),
  );
  return `${resultsHead(findings.length, total, window)}${items}]}`;
}

/** A results page's members before its items, up to the list's opening bracket. */
function resultsHead(count: number, total: number, window: { offset: number; limit: number }): string {
  return `{"current_page":${Math.floor(window.offset / window.limit) + 1},"result_count":${count},"total_results":${total},"total_pages":${Math.ceil(total / window.limit)},"message":"Successfully retrieved results","data":[`;
}

/**
 * {@link resultsPageText}'s page around findings written by SQLite (`FindingPages.servedPage`),
 * as bytes: the items are sent as SQLite wrote them.
 */
export function writtenResultsPage(
  page: { readonly items: Buffer; readonly count: number; readonly total: number },
  window: { offset: number; limit: number },
): JsonText {
  return jsonList(resultsHead(page.count, page.total, window), page.items);
}
