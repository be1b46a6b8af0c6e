/**
 * Targets: a scan input as written (a URL, a host, host:port), its parts exactly as written, and
 * the target lists of `-l` and asset uploads.
 */
export { checkTarget, describeTargetProblem, readTargetList } from './targets.js';
export {
  effectivePort,
  formatTargetUrl,
  hasScheme,
  parseTargetUrl,
  rootUrl,
  TargetError,
  type TargetUrl,
} from './url.js';
