import type { Command } from 'commander';
import type { CommandRegistrar } from '../../program.js';
import { dbOption } from '../../shared/options.js';

/** `keyhole db migrate`. */
export const registerDbCommands: CommandRegistrar = (program: Command, io) => {
  const db = program.command('db').description('manage the store');
  db.command('migrate')
    .description(
      'create or upgrade the store schema (commands that record create it on first use; commands that read upgrade one that exists)',
    )
    .addOption(dbOption())
    .addHelpText(
      'after',
      '\nExamples:\n  keyhole db migrate\n  keyhole db migrate --db postgres://keyhole@db.internal/keyhole\n',
    )
    .action(async (options: { db?: string }) => {
      const { migrate } = await import('./migrate.js');
      await migrate(options, io);
    });
};
