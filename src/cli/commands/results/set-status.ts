/** `keyhole findings set-status STATUS VULN_ID…`: triage by hand. */
import { VULN_STATUSES } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { existingTeam, withStore } from '../../shared/store.js';
import { plural } from '../../shared/words.js';
import type { SetStatusFlags } from './command.js';
import { isVulnStatus } from './filters.js';

/** `keyhole findings set-status STATUS VULN_ID…`: all or nothing, so a typo in one id changes none. */
export async function setFindingStatus(
  status: string,
  vulnIds: readonly string[],
  options: SetStatusFlags,
  io: CliIo,
): Promise<number> {
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
    // One transaction, each change kept in the finding's status history.
    await store.triage.setStatus(team.id, ids, status, 'cli');
  });
  io.stdout.write(`${plural(ids.length, 'finding')} set to ${status}\n`);
  return ExitCode.ok;
}
