import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, type FlagsOf } from '../../shared/options.js';

function defineMigrate(db: Command) {
  return db
    .command('migrate')
    .description(
      'create or upgrade the store schema (commands that record create it on first use; commands that read upgrade one that exists)',
    )
    .addOption(dbOption())
    .addHelpText(
      'after',
      '\nExamples:\n  keyhole db migrate\n  keyhole db migrate --db postgres://keyhole@db.internal/keyhole\n',
    );
}

/** The flags of `keyhole db migrate`, as its definition types them. */
export type MigrateFlags = FlagsOf<typeof defineMigrate>;

/** `keyhole db migrate`. */
export const registerDb: CommandRegistrar = (program, runs) => {
  const db = program.command('db').description('manage the store');
  runs(defineMigrate(db), async () => (await import('./migrate.js')).migrate);
};
