import { type Command, Option } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, existingTeamOption, type FlagsOf } from '../../shared/options.js';

const SCANS_HELP = `
Newest first. FINDINGS counts findings by severity: critical/high/medium/low/info.

Examples:
  keyhole scans list
  keyhole scans list --status running,failed --search nightly
  keyhole scans list --json | jq -r '.scan_id'
`;

const FINDINGS_HELP = `
The VULN_ID column is what keyhole retest and keyhole findings set-status take.

Examples:
  keyhole findings list --scan cn5r7t3kd0ssm6bh1f2g
  keyhole findings list --scan cn5r7t3kd0ssm6bh1f2g --severity critical,high --status open
  keyhole findings list --scan cn5r7t3kd0ssm6bh1f2g --json | jq -r '.vuln_id'
`;

const STATUS_HELP = `
Statuses: open, fixed, false_positive, duplicate, fix_in_progress, accepted_risk,
triaged. keyhole retest also sets open or fixed from what the re-run finds.

Example:
  keyhole findings set-status false_positive cn5r8a3kd0ssm6bh1f30 cn5r8a3kd0ssm6bh1f3g
`;

function defineScansList(scans: Command) {
  return scans
    .command('list')
    .description("list the team's scans, newest first")
    .option(
      '--status <statuses>',
      'only these statuses (comma list: queued, starting, running, finished, failed, uploaded)',
    )
    .option('--search <text>', 'only scans whose name contains this text (case-insensitive)')
    .addOption(new Option('--limit <n>', 'at most this many scans (1–1000)').default('50'))
    .option('--json', 'one JSON object per scan and line')
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .addHelpText('after', SCANS_HELP);
}

function defineFindingsList(findings: Command) {
  return findings
    .command('list')
    .description("list a scan's findings with their vuln ids")
    .requiredOption('--scan <scan-id>', 'the scan whose findings to list')
    .option(
      '--severity <severities>',
      'only these severities (comma list: critical, high, medium, low, info, unknown)',
    )
    .option('--status <statuses>', 'only these vuln statuses (comma list, e.g. open,triaged)')
    .option('--json', 'one JSON object per finding and line')
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .addHelpText('after', FINDINGS_HELP);
}

const EXPORT_HELP = `
Formats: sarif (SARIF 2.1.0), json (one array of nuclei result events), csv (one row per
finding, with its vuln id and status), markdown (a folder: index.md and a file per finding;
needs -o DIR). sarif, json and csv go to stdout unless -o FILE is given. The findings are
exported as the store keeps them, redacted as they were found.

Examples:
  keyhole findings export --scan cn5r7t3kd0ssm6bh1f2g --format sarif -o scan.sarif
  keyhole findings export --scan cn5r7t3kd0ssm6bh1f2g --format markdown -o report/
  keyhole findings export --scan cn5r7t3kd0ssm6bh1f2g --format csv --severity critical,high
`;

export const EXPORT_FORMATS = ['sarif', 'markdown', 'json', 'csv'] as const;

function defineFindingsExport(findings: Command) {
  return findings
    .command('export')
    .description("export a scan's findings as SARIF, markdown, JSON or CSV")
    .requiredOption('--scan <scan-id>', 'the scan whose findings to export')
    .addOption(
      new Option('--format <format>', 'sarif, markdown, json or csv')
        .choices(EXPORT_FORMATS)
        .makeOptionMandatory(),
    )
    .option('-o, --output <path>', 'write to this file (a folder for markdown) instead of stdout')
    .option(
      '--severity <severities>',
      'only these severities (comma list: critical, high, medium, low, info, unknown)',
    )
    .option('--status <statuses>', 'only these vuln statuses (comma list, e.g. open,triaged)')
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .addHelpText('after', EXPORT_HELP);
}

function defineSetStatus(findings: Command) {
  return findings
    .command('set-status')
    .description('triage: set the vuln status of findings')
    .argument('<status>', 'the new status')
    .argument('<vuln-ids...>', 'vuln ids of the findings')
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .addHelpText('after', STATUS_HELP);
}

/** The flags of `keyhole scans list`, as its definition types them. */
export type ScansListFlags = FlagsOf<typeof defineScansList>;

/** The flags of `keyhole findings list`, as its definition types them. */
export type FindingsListFlags = FlagsOf<typeof defineFindingsList>;

/** The flags of `keyhole findings export`, as its definition types them. */
export type FindingsExportFlags = FlagsOf<typeof defineFindingsExport>;

/** The flags of `keyhole findings set-status`, as its definition types them. */
export type SetStatusFlags = FlagsOf<typeof defineSetStatus>;

/** `keyhole scans list`, `keyhole findings list|export|set-status`: the store's results from the terminal. */
export const registerResults: CommandRegistrar = (program, runs) => {
  const scans = program.command('scans').description('scans kept in the store');
  runs(defineScansList(scans), async () => (await import('./list-scans.js')).listScans);
  const findings = program.command('findings').description('findings kept in the store');
  runs(defineFindingsList(findings), async () => (await import('./list-findings.js')).listFindings);
  runs(defineFindingsExport(findings), async () => (await import('./export-findings.js')).exportFindings);
  runs(defineSetStatus(findings), async () => (await import('./set-status.js')).setFindingStatus);
};
