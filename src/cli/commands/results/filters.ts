/** What the filters and the page size of `scans list` and `findings list` take, checked. */
import { isSeverity } from '../../../event/index.js';
import { type Finding, type Store, VULN_STATUSES, type VulnStatus } from '../../../store/index.js';
import { UserError } from '../../exit.js';
import { existingTeam } from '../../shared/store.js';

const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;

/** `--severity` and `--status` of `findings list|export`, as a test of a finding. */
export function findingFilter(options: {
  readonly severity?: string | undefined;
  readonly status?: string | undefined;
}): (finding: Finding) => boolean {
  const severities = commaList(options.severity, '--severity', SEVERITY_NAMES, isSeverity);
  const statuses = commaList(options.status, '--status', VULN_STATUSES, isVulnStatus);
  return (f) =>
    (severities === undefined || severities.includes(f.severity)) &&
    (statuses === undefined || statuses.includes(f.vulnStatus));
}

/** `--scan ID` names a scan of the team, or the command stops saying where to find the ids. */
export async function requireScan(store: Store, teamName: string, scanId: string): Promise<void> {
  const team = await existingTeam(store, teamName);
  if ((await store.scans.get(scanId, team.id)) === undefined) {
    throw new UserError(`team "${teamName}" has no scan with the id ${scanId} (see \`keyhole scans list\`)`);
  }
}

export function isVulnStatus(text: string): text is VulnStatus {
  return (VULN_STATUSES as readonly string[]).includes(text);
}

/** A comma list of allowed values (`undefined` when the option is absent); an unknown one is named. */
export function commaList<T extends string>(
  text: string | undefined,
  option: string,
  allowed: readonly T[],
  is: (value: string) => value is T,
): T[] | undefined {
  if (text === undefined) return undefined;
  const values = text
    .split(',')
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== '');
  const unknown = values.filter((value) => !is(value));
  if (unknown.length > 0 || values.length === 0) {
    throw new UserError(
      `${option}: ${unknown.length > 0 ? `unknown value ${JSON.stringify(unknown[0])}` : 'no value'}; use a comma list of ${allowed.join(', ')}`,
    );
  }
  return values as T[];
}

/** `--limit`: a page of 1 to 1000. */
export function pageLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 1000) {
    throw new UserError(`--limit: expected a whole number from 1 to 1000, got ${JSON.stringify(text)}`);
  }
  return limit;
}
