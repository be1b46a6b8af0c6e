export {
  COMPARISONS,
  type Comparison,
  FINDING_SORTS,
  type FindingCursor,
  type FindingFilter,
  type FindingPage,
  type FindingSort,
  type FindingSummary,
  SEVERITY_RANK,
} from './browse.js';
export type { ChunkClaim, ChunkInput, ClaimScope } from './chunks.js';
export { isStoreUnavailable, StoreMissingError, StoreRequestError } from './errors.js';
export type {
  ServedFinding,
  ServedFindingPage,
  TeamFindingFilter,
  TeamFindingPage,
} from './finding-pages.js';
export { isId, newId } from './id.js';
export { API_KEY_PREFIX, hashApiKey } from './keys.js';
export { describeLocation, maskCredentials, resolveLocation, type StoreLocation } from './location.js';
export {
  type ApiKeyInfo,
  type AssetList,
  DEFAULT_TEAM,
  type Finding,
  isKeyScope,
  isScanStatus,
  KEY_SCOPES,
  type KeyScope,
  type Principal,
  type RetestResult,
  SCAN_STATUSES,
  type Scan,
  type ScanStatus,
  type ServedRetest,
  type Team,
  type TemplateRef,
  VULN_STATUSES,
  type VulnStatus,
} from './model.js';
export {
  RETEST_REQUEST_STATES,
  type RetestClaimScope,
  type RetestRequest,
  type RetestRequestState,
} from './retest-requests.js';
export { isTriagedByHand, type RetestFieldColumns, retestFieldsOf } from './retests.js';
export type { AuthEntry, AuthenticationFigures, ScanAuthentication } from './scan-auth.js';
export { keepEveryScanLists } from './scan-lists.js';
export type { RunKey } from './scan-runs.js';
export { SCAN_SORT_FIELDS, type ScanSortField } from './scans.js';
export {
  servedEvent,
  servedEventsJson,
  servedFindingFields,
  servedFindingHead,
  servedFindingItems,
  servedRetestFields,
  servedRetestItems,
} from './served-event.js';
export { openStore, Store } from './store.js';
export { formatElapsed, formatGoDuration, formatTimestamp } from './time.js';
export { MAX_TRIAGE_IDS, type StatusChange } from './triage.js';
export { targetOf, vulnHash } from './vuln-hash.js';
