export type { AssetQuery } from './assets.js';
export type { ChunkClaim, ChunkInput, ChunkState, ChunkStatus, ClaimScope } from './chunks.js';
export type { Connection } from './connect.js';
export {
  isStoreUnavailable,
  StoreMissingError,
  StoreRequestError,
  StoreUnavailableError,
} from './errors.js';
export type { AddOptions } from './findings.js';
export { isId, newId } from './id.js';
export { API_KEY_PREFIX, hashApiKey } from './keys.js';
export {
  DEFAULT_SQLITE_PATH,
  describeLocation,
  type Engine,
  maskCredentials,
  resolveLocation,
  type StoreLocation,
} from './location.js';
export {
  type ApiKeyInfo,
  type AssetList,
  DEFAULT_TEAM,
  type Finding,
  isScanStatus,
  type PageQuery,
  type Principal,
  RESULT_TYPES,
  type ResultType,
  type RetestResult,
  SCAN_STATUSES,
  type Scan,
  type ScanStatus,
  type ScanTemplate,
  type SeverityCounts,
  type Team,
  type TemplateRef,
  VULN_STATUSES,
  type VulnStatus,
} from './model.js';
export { isTriagedByHand, type RetestInput, statusAfterRetest } from './retests.js';
export type {
  AuthEntry,
  AuthenticationFigures,
  EntryCounts,
  ScanAuthentication,
} from './scan-auth.js';
export { SCAN_SORT_FIELDS, type ScanInput, type ScanQuery, type ScanSortField } from './scans.js';
export { type OpenOptions, openStore, Store } from './store.js';
export { type EpochMs, formatGoDuration, formatTimestamp } from './time.js';
export { severityOf, targetOf, vulnHash } from './vuln-hash.js';
