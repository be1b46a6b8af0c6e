import type { ResultEvent, Severity } from '../event/index.js';
import type { EpochMs } from './time.js';

/** The scan lifecycle: `queued → starting → running → finished | failed`; `uploaded` for imports. */
export const SCAN_STATUSES = ['failed', 'finished', 'queued', 'running', 'starting', 'uploaded'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export function isScanStatus(text: string): text is ScanStatus {
  return (SCAN_STATUSES as readonly string[]).includes(text);
}

export const VULN_STATUSES = [
  'open',
  'fixed',
  'false_positive',
  'duplicate',
  'fix_in_progress',
  'accepted_risk',
  'triaged',
] as const;
export type VulnStatus = (typeof VULN_STATUSES)[number];

/** What a retest found: the finding reproduced, it did not, or the retest could not run. */
export const RESULT_TYPES = ['matched', 'not_matched', 'error'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

export type SeverityCounts = Record<Severity, number>;

export interface Team {
  readonly id: string;
  readonly name: string;
  readonly createdAt: EpochMs;
}

/** The name every command uses when no `--team` is given, so a one-person setup needs no teams. */
export const DEFAULT_TEAM = 'default';

/** What an API key may do: `read` lists its team's data; `write` also changes it. */
export const KEY_SCOPES = ['read', 'write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

export interface ApiKeyInfo {
  readonly id: string;
  readonly teamId: string;
  readonly teamName: string;
  readonly name: string;
  readonly scope: KeyScope;
  /** The first characters of the key (`kh_abc1234`), enough to recognise it, useless to an attacker. */
  readonly prefix: string;
  readonly createdAt: EpochMs;
  readonly revokedAt: EpochMs | null;
}

/** Who is calling the API: the key and the one team whose data it may see. */
export interface Principal {
  readonly keyId: string;
  readonly teamId: string;
  readonly scope: KeyScope;
}

export interface AssetList {
  readonly id: string;
  readonly teamId: string;
  readonly name: string;
  readonly assetCount: number;
  readonly uploadedAt: EpochMs;
}

export interface Scan {
  readonly id: string;
  readonly teamId: string;
  readonly name: string;
  readonly status: ScanStatus;
  /** 0–100. */
  readonly progress: number;
  readonly failureReason: string;
  readonly createdAt: EpochMs;
  readonly updatedAt: EpochMs;
  readonly startedAt: EpochMs | null;
  readonly completedAt: EpochMs | null;
  /** Time spent so far (running) or in total (ended). */
  readonly elapsedMs: number;
  readonly totalTarget: number;
  readonly totalTemplate: number;
  /** Template × target executions. */
  readonly totalScan: number;
  readonly severity: SeverityCounts;
  readonly isOss: boolean;
  readonly isCloud: boolean;
  readonly scanFrequency: string;
  readonly scheduleLastRun: EpochMs | null;
  readonly isRescan: boolean;
  readonly rescanOf: string | null;
  readonly rescanCount: number;
  readonly assetIds: readonly string[];
  readonly templateIds: readonly string[];
  readonly templateUrls: readonly string[];
  readonly publicTemplates: readonly string[];
}

/** A template a scan runs, as given to {@link ScanInput}. */
export interface TemplateRef {
  readonly id: string;
  readonly path?: string;
  readonly url?: string;
  /** The template's text; stored once (base64) and served as `template_encoded`. */
  readonly content?: string;
  /** Already base64, as nuclei's `template-encoded` carries it; ignored when `content` is given. */
  readonly encoded?: string;
  /** From a public template library (nuclei-templates). */
  readonly isPublic?: boolean;
}

export interface ScanTemplate {
  readonly id: string;
  readonly path: string;
  readonly url: string;
  readonly encoded: string;
  readonly isPublic: boolean;
}

export interface Finding {
  /** The vuln id: stable across retests, used by `keyhole retest VULN_ID`. */
  readonly id: string;
  readonly teamId: string;
  readonly scanId: string;
  readonly vulnHash: string;
  readonly vulnStatus: VulnStatus;
  readonly severity: Severity;
  readonly templateId: string;
  readonly templatePath: string;
  readonly templateUrl: string;
  readonly templateEncoded: string;
  readonly target: string;
  readonly event: ResultEvent;
  readonly createdAt: EpochMs;
  readonly updatedAt: EpochMs;
}

export interface RetestResult {
  readonly id: string;
  readonly teamId: string;
  readonly vulnId: string;
  readonly scanId: string;
  readonly target: string;
  readonly templateId: string;
  readonly templatePath: string;
  readonly templateUrl: string;
  readonly templateEncoded: string;
  readonly matcherStatus: boolean;
  readonly resultType: ResultType;
  readonly vulnStatus: VulnStatus;
  readonly events: readonly ResultEvent[];
  readonly createdAt: EpochMs;
  readonly updatedAt: EpochMs;
}

/** A window of a listing, newest first unless a sort says otherwise. */
export interface PageQuery {
  readonly offset: number;
  readonly limit: number;
}

/**
 * A retest result as the API lists it: its members up to its template already as the JSON text
 * served (see `servedRetestFields`), then the members that follow them.
 */
export interface ServedRetest {
  readonly fields: string;
  readonly templateEncoded: string;
  readonly resultType: ResultType;
  readonly vulnStatus: VulnStatus;
}
