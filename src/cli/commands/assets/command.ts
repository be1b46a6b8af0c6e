import type { Command } from 'commander';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, existingTeamOption, teamOption } from '../../shared/options.js';

/** `keyhole assets upload FILE [--name N]`, `keyhole assets list`. */
export const registerAssetCommands: CommandRegistrar = (program: Command, io, setExit) => {
  const assets = program.command('assets').description('asset lists: named lists of targets to scan');

  assets
    .command('upload')
    .description('store a target list as a named asset list (scan it with `keyhole scan --asset ID`)')
    .argument('<file>', 'one target per line: URL, host, host:port, IPv4 or IPv6; # starts a comment')
    .option('--name <name>', 'name of the asset list (default: the file name)')
    .option('--skip-invalid', 'store the good lines even when some lines are not targets')
    .addOption(teamOption())
    .addOption(dbOption())
    .addHelpText(
      'after',
      `
Blank lines and # comments are ignored and duplicates dropped. A line that is not a target is
reported as FILE:LINE and nothing is stored (exit code 1), unless --skip-invalid is given: then
the good lines are stored and the command exits 0, the bad ones still reported on stderr.

Examples:
  keyhole assets upload hosts.txt --name prod
  keyhole assets upload scope.txt --name partners --team partners --skip-invalid
`,
    )
    .action(
      async (file: string, options: { name?: string; skipInvalid?: boolean; team: string; db?: string }) => {
        const { uploadAssets } = await import('./upload.js');
        setExit(await uploadAssets(file, options, io));
      },
    );

  assets
    .command('list')
    .description("list the team's asset lists, newest first")
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .action(async (options: { team: string; db?: string }) => {
      const { listAssets } = await import('./list.js');
      await listAssets(options, io);
    });
};
