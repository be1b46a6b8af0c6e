/** The findings a retest takes from the store, and what it needs to retest them. */
import { REDACTED } from '../../../secretfile/index.js';
import type { Finding, Store } from '../../../store/index.js';
import { UserError } from '../../exit.js';
import type { RetestConfig } from './config.js';

/** The findings to retest; ids the team has no finding for are named (another team's look the same). */
export async function selectFindings(
  store: Store,
  teamId: string,
  select: RetestConfig['select'],
): Promise<Finding[]> {
  if ('scanId' in select) {
    const scan = await store.scans.get(select.scanId, teamId);
    if (scan === undefined) throw new UserError(`--scan ${select.scanId}: no scan has that id`);
    const findings: Finding[] = [];
    for await (const finding of store.findings.allOfScan(scan.id)) findings.push(finding);
    return findings;
  }
  const found: Finding[] = [];
  const unknown: string[] = [];
  for (const id of select.vulnIds) {
    const finding = await store.findings.get(id, teamId);
    if (finding === undefined) unknown.push(id);
    else found.push(finding);
  }
  if (unknown.length > 0) {
    const what = unknown.length === 1 ? 'no finding has the vuln id' : 'no findings have the vuln ids';
    throw new UserError(`${what} ${unknown.join(', ')}; nothing was retested`);
  }
  return found;
}

/** The vuln hashes of every finding of the findings' scans, by scan (`whole`: the findings are all of one scan). */
export async function findingsOfScans(
  store: Store,
  findings: readonly Finding[],
  whole: boolean,
): Promise<Map<string, Set<string>>> {
  const byScan = new Map<string, Set<string>>();
  if (whole) {
    for (const finding of findings) {
      const hashes = byScan.get(finding.scanId) ?? new Set<string>();
      hashes.add(finding.vulnHash);
      byScan.set(finding.scanId, hashes);
    }
    return byScan;
  }
  for (const scanId of new Set(findings.map((f) => f.scanId))) {
    const hashes = new Set<string>();
    for await (const finding of store.findings.allOfScan(scanId)) hashes.add(finding.vulnHash);
    byScan.set(scanId, hashes);
  }
  return byScan;
}

/**
 * A finding whose request carried a secret, retested without `-sf`, would be asked for without it:
 * "not matched" would then mean "not logged in", and the finding would be recorded as fixed.
 */
export function requireSecretsFor(findings: readonly Finding[]): void {
  const withSecrets = findings.filter((f) => (f.event.request ?? '').includes(REDACTED));
  const [first] = withSecrets;
  if (first === undefined) return;
  const which =
    withSecrets.length === 1
      ? `finding ${first.id} was found with a secret (its request shows ${REDACTED})`
      : `${withSecrets.length} of the findings were found with a secret (their requests show ${REDACTED})`;
  throw new UserError(
    `${which}: give the secret files with -sf, or a finding behind a login would be recorded as fixed`,
  );
}
