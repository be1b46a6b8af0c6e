import type { ResultEvent } from '../event/index.js';
import {
  type AssetList,
  formatGoDuration,
  formatTimestamp,
  type RetestResult,
  type Scan,
} from '../store/index.js';
import type { AssetItem, EventRecord, RetestItem, ScanItem } from './schemas.js';

/** Whole seconds from a second up, as users read durations in a list; milliseconds below. */
function elapsed(ms: number): string {
  return formatGoDuration(ms >= 1000 ? Math.round(ms / 1000) * 1000 : ms);
}

export function scanItem(scan: Scan): ScanItem {
  return {
    scan_id: scan.id,
    status: scan.status,
    scan_time_elapsed: elapsed(scan.elapsedMs),
    progress: scan.progress,
    failure_reason: scan.failureReason,
    created_at: formatTimestamp(scan.createdAt),
    updated_at: formatTimestamp(scan.updatedAt),
    total_target: scan.totalTarget,
    completed_at: formatTimestamp(scan.completedAt),
    total_scan: scan.totalScan,
    total_template: scan.totalTemplate,
    name: scan.name,
    severity: { ...scan.severity },
    is_oss: scan.isOss,
    is_cloud: scan.isCloud,
    scan_frequency: scan.scanFrequency,
    schedule_last_run: formatTimestamp(scan.scheduleLastRun),
    asset_ids: [...scan.assetIds],
    is_rescan: scan.isRescan,
    public_templates: [...scan.publicTemplates],
    report_config_ids: [],
    rescan_count: scan.rescanCount,
    scan_config_ids: [],
    template_ids: [...scan.templateIds],
    template_urls: [...scan.templateUrls],
  };
}

export function assetItem(list: AssetList): AssetItem {
  return {
    asset_count: list.assetCount,
    asset_id: list.id,
    uploaded_at: formatTimestamp(list.uploadedAt),
    name: list.name,
  };
}

export function retestItem(result: RetestResult): RetestItem {
  return {
    matcher_status: result.matcherStatus,
    vuln_id: result.vulnId,
    target: result.target,
    template_url: result.templateUrl,
    created_at: formatTimestamp(result.createdAt),
    updated_at: formatTimestamp(result.updatedAt),
    scan_id: result.scanId,
    event: result.events.map(eventRecord),
    template_id: result.templateId,
    template_path: result.templatePath,
    template_encoded: result.templateEncoded,
    result_type: result.resultType,
    vuln_status: result.vulnStatus,
  };
}

type Loose = Record<string, unknown>;

/**
 * A stored event as the API shows it: every field of docs/store-and-api.md#event-records present
 * with its type (nuclei omits empty ones and writes absent lists as null; the API gives "", [], 0
 * and false), and the other keys nuclei writes kept as they are.
 */
export function eventRecord(event: ResultEvent): EventRecord {
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
