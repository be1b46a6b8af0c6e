/**
 * Targets: a scan input as written (a URL, a host, host:port), its parts exactly as written, and
 * the target lists of `-l` and asset uploads.
 */
export {
  type CheckedTarget,
  checkTarget,
  describeTargetProblem,
  MAX_TARGET_LINE_BYTES,
  parseTargetList,
  readTargetList,
  type TargetList,
  TargetListReader,
  type TargetProblem,
} from './targets.js';
export {
  effectivePort,
  formatTargetUrl,
  hasScheme,
  parseTargetUrl,
  relativePart,
  rootUrl,
  TargetError,
  type TargetUrl,
} from './url.js';
