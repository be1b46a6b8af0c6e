import { quote } from '../../../source/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { withStore } from '../../shared/store.js';
import type { CreateFlags } from './command.js';

/** `keyhole keys create`. */
export async function createKey(options: CreateFlags, io: CliIo): Promise<number> {
  const { key, secret } = await withStore(io, options.db, { create: true }, async (store) => {
    const team = await store.teams.ensure(options.team);
    return store.keys.create({ teamId: team.id, name: options.name, scope: options.scope });
  });
  io.stderr.write(
    `created ${key.scope} API key ${key.id} ${quote(key.name)} for team ${quote(key.teamName)}\n`,
  );
  io.stdout.write(`${secret}\n`);
  io.stderr.write('store it now: it is not shown again. Send it in the X-API-Key header.\n');
  return ExitCode.ok;
}
