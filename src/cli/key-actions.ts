import { quote } from '../source/index.js';
import { formatTimestamp } from '../store/index.js';
import { UserError } from './exit.js';
import type { CliIo } from './io.js';
import { withStore } from './shared/store.js';
import { table } from './shared/table.js';

/** `keyhole keys create`. */
export async function createKey(
  options: { name: string; team: string; db?: string },
  io: CliIo,
): Promise<void> {
  const { key, secret } = await withStore(io, options.db, { create: true }, async (store) => {
    const team = await store.teams.ensure(options.team);
    return store.keys.create({ teamId: team.id, name: options.name });
  });
  io.stderr.write(`created API key ${key.id} ${quote(key.name)} for team ${quote(key.teamName)}\n`);
  io.stdout.write(`${secret}\n`);
  io.stderr.write('store it now: it is not shown again. Send it in the X-API-Key header.\n');
}

/** `keyhole keys list`. */
export async function listKeys(options: { db?: string }, io: CliIo): Promise<void> {
  const all = await withStore(io, options.db, { create: false }, (store) => store.keys.list());
  io.stdout.write(
    table(
      ['ID', 'NAME', 'TEAM', 'KEY', 'CREATED', 'STATUS'],
      all.map((k) => [
        k.id,
        k.name,
        k.teamName,
        `${k.prefix}…`,
        formatTimestamp(k.createdAt),
        k.revokedAt === null ? 'active' : `revoked ${formatTimestamp(k.revokedAt)}`,
      ]),
    ),
  );
}

/** `keyhole keys revoke ID`. */
export async function revokeKey(id: string, options: { db?: string }, io: CliIo): Promise<void> {
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
}
