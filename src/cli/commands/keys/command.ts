import type { Command } from 'commander';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, teamOption } from '../../shared/options.js';

/** `keyhole keys create|list|revoke`. */
export const registerKeyCommands: CommandRegistrar = (program: Command, io) => {
  const keys = program
    .command('keys')
    .description('API keys for `keyhole serve`; each key sees only its team');

  keys
    .command('create')
    .description('create an API key and print it (once: only its hash is stored)')
    .requiredOption('--name <name>', 'what the key is for (shown by `keys list`)')
    .addOption(teamOption())
    .addOption(dbOption())
    .addHelpText(
      'after',
      `
The key is printed alone on stdout, so scripts can capture it; the rest goes to stderr.
Without --team the key belongs to the team "default", which is also where imports, asset
uploads and scans go when they are given no --team.

Examples:
  keyhole keys create --name ci
  API_KEY=$(keyhole keys create --name dashboard --team appsec)
`,
    )
    .action(async (options: { name: string; team: string; db?: string }) => {
      const { createKey } = await import('./create.js');
      await createKey(options, io);
    });

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .addOption(dbOption())
    .action(async (options: { db?: string }) => {
      const { listKeys } = await import('./list.js');
      await listKeys(options, io);
    });

  keys
    .command('revoke')
    .description('revoke an API key: requests with it get 401 from then on')
    .argument('<id>', 'the key id shown by `keys list`')
    .addOption(dbOption())
    .action(async (id: string, options: { db?: string }) => {
      const { revokeKey } = await import('./revoke.js');
      await revokeKey(id, options, io);
    });
};
