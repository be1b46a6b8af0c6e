import type { ResultEvent } from '../event/index.js';
import {
  type AssetList,
  formatElapsed,
  formatTimestamp,
  type RetestResult,
  type Scan,
  type ServedRetest,
  servedEvent,
  servedRetestItems,
} from '../store/index.js';
import type { AssetItem, EventRecord, RetestItem, ScanItem } from './schemas.js';

export function scanItem(scan: Scan): ScanItem {
  const { critical, high, medium, low, info, unknown } = scan.severity;
  return {
    scan_id: scan.id,
    status: scan.status,
    scan_time_elapsed: formatElapsed(scan.elapsedMs),
    progress: scan.progress,
    failure_reason: scan.failureReason,
    created_at: formatTimestamp(scan.createdAt),
    updated_at: formatTimestamp(scan.updatedAt),
    total_target: scan.totalTarget,
    completed_at: formatTimestamp(scan.completedAt),
    total_scan: scan.totalScan,
    total_template: scan.totalTemplate,
    name: scan.name,
    // Most severe first, as the pages list them (`SEVERITY_RANK`).
    severity: { critical, high, medium, low, info, unknown },
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

/**
 * A `/v1/retest` page as JSON text: the fields of {@link retestItem}, in its order, each
 * result's served fields spliced in as they are kept (never parsed for a page).
 */
export function retestPage(message: string, results: readonly ServedRetest[]): string {
  return `{"message":${JSON.stringify(message)},"results":[${servedRetestItems(results)}]}`;
}

/** A stored event as the API shows it (see {@link servedEvent}). */
export function eventRecord(event: ResultEvent): EventRecord {
  return servedEvent(event) as EventRecord;
}
