import { describeLocation, resolveLocation } from '../store/index.js';
import type { CliIo } from './io.js';
import { withStore } from './store-access.js';

/** `keyhole db migrate`. */
export async function migrate(options: { db?: string }, io: CliIo): Promise<void> {
  const location = resolveLocation(options.db, io.env, io.cwd);
  await withStore(
    io,
    options.db,
    async (store) => {
      const applied = await store.migrate();
      io.stdout.write(
        applied.length === 0
          ? `${describeLocation(location)}: schema is up to date\n`
          : `${describeLocation(location)}: applied ${applied.join(', ')}\n`,
      );
    },
    { migrate: false },
  );
}
