/** `keyhole findings list --scan ID`: a scan's findings with their vuln ids, as a table or JSON lines. */
import { isSeverity } from '../../../event/index.js';
import { type Finding, formatTimestamp, VULN_STATUSES } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { existingTeam, withStore } from '../../shared/store.js';
import { table } from '../../shared/table.js';
import type { FindingsListFlags } from './command.js';
import { commaList, isVulnStatus } from './filters.js';

/** `keyhole findings list --scan ID`: read a page at a time, printed as it comes. */
export async function listFindings(options: FindingsListFlags, io: CliIo): Promise<number> {
  const severities = commaList(options.severity, '--severity', SEVERITY_NAMES, isSeverity);
  const statuses = commaList(options.status, '--status', VULN_STATUSES, isVulnStatus);
  const keep = (f: Finding) =>
    (severities === undefined || severities.includes(f.severity)) &&
    (statuses === undefined || statuses.includes(f.vulnStatus));
  const rows = await withStore(io, options.db, { create: false }, async (store) => {
    const team = await existingTeam(store, options.team);
    if ((await store.scans.get(options.scan, team.id)) === undefined) {
      throw new UserError(
        `team "${options.team}" has no scan with the id ${options.scan} (see \`keyhole scans list\`)`,
      );
    }
    const kept: Finding[] = [];
    for await (const finding of store.findings.allOfScan(options.scan)) {
      if (!keep(finding)) continue;
      if (options.json === true) io.stdout.write(`${JSON.stringify(findingLine(finding))}\n`);
      else kept.push(finding);
    }
    return kept;
  });
  if (options.json === true) return ExitCode.ok;
  io.stdout.write(
    table(
      ['VULN_ID', 'SEVERITY', 'STATUS', 'TEMPLATE', 'MATCHED-AT'],
      rows.map((f) => [f.id, f.severity, f.vulnStatus, f.templateId, matchedAt(f)]),
    ),
  );
  return ExitCode.ok;
}

const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;

function findingLine(finding: Finding) {
  return {
    vuln_id: finding.id,
    scan_id: finding.scanId,
    severity: finding.severity,
    vuln_status: finding.vulnStatus,
    template_id: finding.templateId,
    target: finding.target,
    matched_at: matchedAt(finding),
    created_at: formatTimestamp(finding.createdAt),
  };
}

function matchedAt(finding: Finding): string {
  return finding.event['matched-at'] || finding.target;
}
