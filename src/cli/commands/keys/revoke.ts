import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { withStore } from '../../shared/store.js';
import type { RevokeFlags } from './command.js';

/** `keyhole keys revoke ID`. */
export async function revokeKey(id: string, options: RevokeFlags, io: CliIo): Promise<number> {
  const key = await withStore(io, options.db, { create: false }, async (store) => {
    const before = await store.keys.get(id);
    if (before === undefined) throw new UserError(`no API key has the id ${id} (see \`keyhole keys list\`)`);
    const after = await store.keys.revoke(id);
    return { wasRevoked: before.revokedAt !== null, key: after ?? before };
  });
  io.stdout.write(
    key.wasRevoked
      ? `API key ${id} "${key.key.name}" was already revoked\n`
      : `revoked API key ${id} "${key.key.name}"\n`,
  );
  return ExitCode.ok;
}
