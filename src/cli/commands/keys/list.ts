import { formatTimestamp } from '../../../store/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { withStore } from '../../shared/store.js';
import { table } from '../../shared/table.js';
import type { ListFlags } from './command.js';

/** `keyhole keys list`. */
export async function listKeys(options: ListFlags, io: CliIo): Promise<number> {
  const all = await withStore(io, options.db, { create: false }, (store) => store.keys.list());
  io.stdout.write(
    table(
      ['ID', 'NAME', 'TEAM', 'SCOPE', 'KEY', 'CREATED', 'STATUS'],
      all.map((k) => [
        k.id,
        k.name,
        k.teamName,
        k.scope,
        `${k.prefix}…`,
        formatTimestamp(k.createdAt),
        k.revokedAt === null ? 'active' : `revoked ${formatTimestamp(k.revokedAt)}`,
      ]),
    ),
  );
  return ExitCode.ok;
}
