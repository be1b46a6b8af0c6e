import { isSeverity, type Severity } from '../event/index.js';
import {
  type Finding,
  formatTimestamp,
  isScanStatus,
  SCAN_STATUSES,
  type Scan,
  type ScanAuthentication,
  VULN_STATUSES,
  type VulnStatus,
} from '../store/index.js';
import { UserError } from './exit.js';
import type { CliIo } from './io.js';
import { existingTeam, withStore } from './shared/store.js';
import { table } from './shared/table.js';

interface ListScansOptions {
  readonly status?: string;
  readonly search?: string;
  readonly limit: string;
  readonly json?: boolean;
  readonly team: string;
  readonly db?: string;
}

/** `keyhole scans list`. */
export async function listScans(options: ListScansOptions, io: CliIo): Promise<void> {
  const statuses = commaList(options.status, '--status', SCAN_STATUSES, isScanStatus);
  const limit = pageLimit(options.limit);
  const search = options.search ?? '';
  if (search.length > 256) throw new UserError('--search: at most 256 characters');
  const { scans, authentication } = await withStore(io, options.db, { create: false }, async (store) => {
    const team = await existingTeam(store, options.team);
    const scans = await store.scans.list(team.id, { offset: 0, limit, statuses, search });
    return { scans, authentication: await store.authentication.of(scans.map((s) => s.id)) };
  });
  if (options.json === true) {
    for (const scan of scans)
      io.stdout.write(`${JSON.stringify(scanLine(scan, authentication.get(scan.id)))}\n`);
    return;
  }
  io.stdout.write(
    table(
      ['ID', 'NAME', 'STATUS', 'PROGRESS', 'FINDINGS', 'CREATED'],
      scans.map((s) => [
        s.id,
        s.name,
        s.status,
        `${s.progress}%`,
        SEVERITY_COLUMNS.map((severity) => s.severity[severity]).join('/'),
        formatTimestamp(s.createdAt),
      ]),
    ),
  );
}

const SEVERITY_COLUMNS = ['critical', 'high', 'medium', 'low', 'info'] as const satisfies readonly Severity[];

/** A scan as `scans list --json` prints it: the API's names, and how authenticated it was. */
function scanLine(scan: Scan, authentication: ScanAuthentication | undefined) {
  return {
    scan_id: scan.id,
    name: scan.name,
    status: scan.status,
    progress: scan.progress,
    severity: scan.severity,
    created_at: formatTimestamp(scan.createdAt),
    ...(scan.failureReason === '' ? {} : { failure_reason: scan.failureReason }),
    ...(authentication === undefined ? {} : { authentication: authenticationLine(authentication) }),
  };
}

function authenticationLine(authentication: ScanAuthentication) {
  return {
    requests: authentication.requests,
    authenticated: authentication.authenticated,
    entries: authentication.entries.map((e) => ({
      entry: e.label,
      kind: e.kind,
      types: e.types,
      scope: e.scope,
      fingerprint: e.fingerprint,
      ...(e.planned ? { planned: true } : {}),
      requests: e.requests,
      refused: e.refused,
      logins: e.logins,
      login_failures: e.loginFailures,
      relogins: e.relogins,
    })),
  };
}

interface ListFindingsOptions {
  readonly scan: string;
  readonly severity?: string;
  readonly status?: string;
  readonly json?: boolean;
  readonly team: string;
  readonly db?: string;
}

/** `keyhole findings list --scan ID`: read a page at a time, printed as it comes. */
export async function listFindings(options: ListFindingsOptions, io: CliIo): Promise<void> {
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
  if (options.json === true) return;
  io.stdout.write(
    table(
      ['VULN_ID', 'SEVERITY', 'STATUS', 'TEMPLATE', 'MATCHED-AT'],
      rows.map((f) => [f.id, f.severity, f.vulnStatus, f.templateId, matchedAt(f)]),
    ),
  );
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

/** `keyhole findings set-status STATUS VULN_ID…`: all or nothing, so a typo in one id changes none. */
export async function setFindingStatus(
  status: string,
  vulnIds: readonly string[],
  options: { team: string; db?: string },
  io: CliIo,
): Promise<void> {
  if (!isVulnStatus(status)) {
    throw new UserError(`unknown status ${JSON.stringify(status)}; use one of ${VULN_STATUSES.join(', ')}`);
  }
  const ids = [...new Set(vulnIds)];
  await withStore(io, options.db, { create: false }, async (store) => {
    const team = await existingTeam(store, options.team);
    const missing: string[] = [];
    for (const id of ids) if ((await store.findings.get(id, team.id)) === undefined) missing.push(id);
    if (missing.length > 0) {
      throw new UserError(
        `team "${options.team}" has no finding with the id ${missing.join(', ')}; nothing changed (see \`keyhole findings list --scan ID\`)`,
      );
    }
    for (const id of ids) await store.findings.setStatus(id, status);
  });
  io.stdout.write(`${ids.length} finding${ids.length === 1 ? '' : 's'} set to ${status}\n`);
}

function isVulnStatus(text: string): text is VulnStatus {
  return (VULN_STATUSES as readonly string[]).includes(text);
}

/** A comma list of allowed values (`undefined` when the option is absent); an unknown one is named. */
function commaList<T extends string>(
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

function pageLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 1000) {
    throw new UserError(`--limit: expected a whole number from 1 to 1000, got ${JSON.stringify(text)}`);
  }
  return limit;
}
