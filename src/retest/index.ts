/**
 * Retesting findings: a finding's template, exactly as its scan ran it, re-run on the finding's
 * target in matcher-status mode, with a verdict (reproduced, not reproduced, or could not tell) per
 * finding. `keyhole retest` records the outcomes; `keyhole scan --rescan` reads stored templates
 * the same way.
 */
export { type RetestOutcome, type RetestSubject, retestFindings, retestTarget } from './retest-findings.js';
export { loadStoredTemplate, needsOast } from './stored-template.js';
