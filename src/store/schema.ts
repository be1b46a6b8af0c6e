import type { ColumnType } from 'kysely';
import type { EpochMs } from './time.js';

/**
 * The tables, as Kysely sees them. The same schema runs on SQLite and PostgreSQL, so it uses the
 * types both share: text, integers (flags are 0/1), timestamps as epoch milliseconds (UTC), and
 * JSON kept as text exactly as written (key order matters to nuclei tooling).
 */
export interface Database {
  team: TeamTable;
  api_key: ApiKeyTable;
  asset_list: AssetListTable;
  asset_target: AssetTargetTable;
  scan: ScanTable;
  scan_target: ScanTargetTable;
  scan_template: ScanTemplateTable;
  scan_asset: ScanAssetTable;
  scan_chunk: ScanChunkTable;
  scan_auth: ScanAuthTable;
  scan_run_done: ScanRunDoneTable;
  template_source: TemplateSourceTable;
  finding: FindingTable;
  retest: RetestTable;
  finding_status_change: FindingStatusChangeTable;
  retest_request: RetestRequestTable;
  scan_bucket: BucketTable;
  retest_bucket: BucketTable;
  scan_status_bucket: StatusBucketTable;
  /** SQLite only (migration 0020). */
  scan_bucket_span: SpanTable;
  /** SQLite only (migration 0020). */
  retest_bucket_span: SpanTable;
  /** SQLite only (migration 0020). */
  scan_status_bucket_span: StatusSpanTable;
  finding_bucket: FindingBucketTable;
  finding_tally: FindingTallyTable;
  scan_name_gram: ScanNameGramTable;
}

/**
 * The days of the 32 starting at `span` (bit 0 the first) whose scans' folded names hold `gram`,
 * a pair or a run of three consecutive characters ('' for days that may hold any: see migration
 * 0021). On PostgreSQL the 32nd day is the sign bit.
 */
export interface ScanNameGramTable {
  team_id: string;
  gram: string;
  span: EpochMs;
  days: number;
}

/** How many rows of a team were created in the day (UTC) starting at `bucket` (epoch ms). */
export interface BucketTable {
  team_id: string;
  bucket: EpochMs;
  n: number;
}

/** How many scans of a team created in the day starting at `bucket` have `status` now. */
export interface StatusBucketTable extends BucketTable {
  status: string;
}

/** The sum of a day table's counts over the 32 days starting at `span` (epoch ms; see buckets.ts). */
export interface SpanTable {
  team_id: string;
  span: EpochMs;
  n: number;
}

export interface StatusSpanTable extends SpanTable {
  status: string;
}

export type Flag = 0 | 1;

export interface TeamTable {
  id: string;
  name: string;
  created_at: EpochMs;
}

export interface ApiKeyTable {
  id: string;
  team_id: string;
  name: string;
  /** SHA-256 of the key, lowercase hex; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, to recognise it in a listing. */
  key_prefix: string;
  /** `read` or `write` (migration 0011). */
  scope: string;
  created_at: EpochMs;
  revoked_at: EpochMs | null;
}

export interface AssetListTable {
  id: string;
  team_id: string;
  name: string;
  /** `name` case-folded, for case-insensitive search that treats every character literally. */
  name_folded: string;
  asset_count: number;
  uploaded_at: EpochMs;
}

export interface AssetTargetTable {
  asset_id: string;
  position: number;
  target: string;
}

export interface ScanTable {
  id: string;
  team_id: string;
  name: string;
  name_folded: string;
  status: string;
  progress: number;
  failure_reason: string;
  created_at: EpochMs;
  updated_at: EpochMs;
  started_at: EpochMs | null;
  completed_at: EpochMs | null;
  /** Set when the scan ends (or for an import, from its events); live scans derive it from started_at. */
  elapsed_ms: number | null;
  total_target: number;
  total_template: number;
  total_scan: number;
  severity_critical: number;
  severity_high: number;
  severity_medium: number;
  severity_low: number;
  severity_info: number;
  severity_unknown: number;
  is_oss: Flag;
  is_cloud: Flag;
  scan_frequency: string;
  schedule_last_run: EpochMs | null;
  is_rescan: Flag;
  rescan_of: string | null;
  rescan_count: number;
  /**
   * The scan's lists as JSON array texts, as the listings serve them, kept from `scan_template`
   * (in position order: every template id, the public ones, the non-empty urls) and `scan_asset`
   * (by asset id) whenever those are written (see scan-lists.ts; migration 0023).
   */
  listed_template_ids: ListText;
  listed_public_templates: ListText;
  listed_template_urls: ListText;
  listed_asset_ids: ListText;
}

/** A JSON array text kept by the store: `[]` until written. */
type ListText = ColumnType<string, string | undefined, string>;

export interface ScanTargetTable {
  scan_id: string;
  position: number;
  target: string;
}

export interface ScanTemplateTable {
  scan_id: string;
  position: number;
  template_id: string;
  template_path: string;
  template_url: string;
  template_hash: string | null;
  is_public: Flag;
}

/** A template run of a scan that finished (migration 0006); target -1 for a self-contained template. */
export interface ScanRunDoneTable {
  scan_id: string;
  template_id: string;
  target: number;
}

/** What one secret-file entry did in a scan (migration 0005); fingerprint '' for requests without one. */
export interface ScanAuthTable {
  scan_id: string;
  fingerprint: string;
  label: string;
  /** `static`, `dynamic`, or '' for requests without a secret. */
  kind: string;
  /** The entry's secret types, comma-separated. */
  types: string;
  scope: string;
  planned: Flag;
  requests: number;
  refused: number;
  /** Answers by which the target refused the entry's secret (migration 0017). */
  rejected: number;
  logins: number;
  login_failures: number;
  relogins: number;
}

/** A run of a queued scan's targets that one worker takes at a time. */
export interface ScanChunkTable {
  scan_id: string;
  /** 0, 1, …: the self-contained templates run with chunk 0. */
  chunk: number;
  /** Position of its first target in scan_target. */
  first_target: number;
  target_count: number;
  runs_total: number;
  runs_done: number;
  /** `pending` (waiting or given back), `running` (leased by `worker` until `lease_until`), `done`, `failed`. */
  state: string;
  worker: string | null;
  lease_until: EpochMs | null;
  /** Times a worker took it. */
  attempts: number;
  last_error: string;
  updated_at: EpochMs;
}

export interface ScanAssetTable {
  scan_id: string;
  asset_id: string;
}

/** Template contents, base64, stored once however many scans and retests use them. */
export interface TemplateSourceTable {
  hash: string;
  encoded: string;
}

export interface FindingTable {
  id: string;
  team_id: string;
  scan_id: string;
  vuln_hash: string;
  vuln_status: string;
  severity: string;
  template_id: string;
  template_path: string;
  template_url: string;
  template_hash: string | null;
  target: string;
  /** The result event, as a JSON object. */
  event: string;
  /** Its listing members as the API serves them (see `servedFindingFields`); null on rows recorded before 0016. */
  served_fields: string | null;
  /**
   * The rest of its listing item that never changes, as the API serves it, in pieces around the
   * members that do (see `servedFindingHead`); null on rows recorded before 0026.
   */
  served_head: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

export interface RetestTable {
  id: string;
  team_id: string;
  finding_id: string;
  scan_id: string;
  target: string;
  template_id: string;
  template_path: string;
  template_url: string;
  template_hash: string | null;
  matcher_status: Flag;
  result_type: string;
  vuln_status: string;
  /** The retest's result events, as a JSON array. */
  events: string;
  /**
   * The same events as the API serves them (see `servedEventsJson`), on rows recorded from 0006 to
   * 0023; null before, and after, where `served_fields` holds them.
   */
  served_events: string | null;
  /**
   * Its listing item's members up to its template, as the API serves them (see
   * `servedRetestFields`); null on rows recorded before 0024.
   */
  served_fields: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

/** A team's findings per id bucket (`substr(id, 1, 3)`), severity and status (migration 0015). */
export interface FindingBucketTable {
  team_id: string;
  bucket: string;
  severity: string;
  vuln_status: string;
  n: number;
}

/** A team's findings per target, template, severity and status (migration 0015). */
export interface FindingTallyTable {
  team_id: string;
  target: string;
  template_id: string;
  severity: string;
  vuln_status: string;
  n: number;
}

/** One triage of a finding (migration 0011): its status before and after, when, and by whom. */
export interface FindingStatusChangeTable {
  id: string;
  finding_id: string;
  previous_status: string;
  vuln_status: string;
  changed_at: EpochMs;
  /** `key:ID` for an API key, `cli` for `keyhole findings set-status`. */
  changed_by: string;
}

/** A retest asked for through the API (migration 0014), until its runner records it. */
export interface RetestRequestTable {
  id: string;
  team_id: string;
  finding_id: string;
  /** `key:ID` of the API key that asked. */
  requested_by: string;
  needs_secrets: Flag;
  /** queued → running → done | failed. */
  state: string;
  /** Who took it: `serve:…` or a worker's id. */
  runner: string | null;
  /** The retest result recorded, once done. */
  retest_id: string | null;
  /** Why it failed. */
  error: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}
