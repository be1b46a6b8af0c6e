import { formatTimestamp } from '../../../store/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { existingTeam, withStore } from '../../shared/store.js';
import { table } from '../../shared/table.js';
import type { ListFlags } from './command.js';

/** `keyhole assets list`. */
export async function listAssets(options: ListFlags, io: CliIo): Promise<number> {
  const lists = await withStore(io, options.db, { create: false }, async (store) => {
    const team = await existingTeam(store, options.team);
    return store.assets.list(team.id, { offset: 0, limit: 1000 });
  });
  io.stdout.write(
    table(
      ['ID', 'NAME', 'TARGETS', 'UPLOADED'],
      lists.map((l) => [l.id, l.name, String(l.assetCount), formatTimestamp(l.uploadedAt)]),
    ),
  );
  return ExitCode.ok;
}
