/** `keyhole findings list --scan ID`: a scan's findings with their vuln ids, as a table or JSON lines. */
import { type Finding, formatTimestamp } from '../../../store/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { withStore } from '../../shared/store.js';
import { table } from '../../shared/table.js';
import type { FindingsListFlags } from './command.js';
import { findingFilter, requireScan } from './filters.js';

/** `keyhole findings list --scan ID`: read a page at a time, printed as it comes. */
export async function listFindings(options: FindingsListFlags, io: CliIo): Promise<number> {
  const keep = findingFilter(options);
  const rows = await withStore(io, options.db, { create: false }, async (store) => {
    await requireScan(store, options.team, options.scan);
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
