/** `keyhole scans list`: the team's scans, as a table or JSON lines. */
import type { Severity } from '../../../event/index.js';
import {
  formatTimestamp,
  isScanStatus,
  SCAN_STATUSES,
  type Scan,
  type ScanAuthentication,
} from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { existingTeam, withStore } from '../../shared/store.js';
import { table } from '../../shared/table.js';
import type { ScansListFlags } from './command.js';
import { commaList, pageLimit } from './filters.js';

/** `keyhole scans list`. */
export async function listScans(options: ScansListFlags, io: CliIo): Promise<number> {
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
    return ExitCode.ok;
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
  return ExitCode.ok;
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
      rejected: e.rejected,
      logins: e.logins,
      login_failures: e.loginFailures,
      relogins: e.relogins,
    })),
  };
}
