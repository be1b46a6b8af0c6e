import { describeLocation } from '../../../store/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { withStore } from '../../shared/store.js';
import type { MigrateFlags } from './command.js';

/** `keyhole db migrate`: creates the store, or upgrades it. */
export async function migrate(options: MigrateFlags, io: CliIo): Promise<number> {
  await withStore(io, options.db, { create: true, migrate: false }, async (store) => {
    const applied = await store.migrate();
    const where = describeLocation(store.location);
    io.stdout.write(
      applied.length === 0 ? `${where}: schema is up to date\n` : `${where}: applied ${applied.join(', ')}\n`,
    );
    for (const advice of await store.adviceAfter(applied)) io.stderr.write(`note: ${advice}\n`);
  });
  return ExitCode.ok;
}
