import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, existingTeamOption, type FlagsOf, teamOption } from '../../shared/options.js';

const UPLOAD_HELP = `
Blank lines and # comments are ignored and duplicates dropped. A line that is not a target is
reported as FILE:LINE and nothing is stored (exit code 1), unless --skip-invalid is given: then
the good lines are stored and the command exits 0, the bad ones still reported on stderr.

Examples:
  keyhole assets upload hosts.txt --name prod
  keyhole assets upload scope.txt --name partners --team partners --skip-invalid
`;

function defineUpload(assets: Command) {
  return assets
    .command('upload')
    .description('store a target list as a named asset list (scan it with `keyhole scan --asset ID`)')
    .argument('<file>', 'one target per line: URL, host, host:port, IPv4 or IPv6; # starts a comment')
    .option('--name <name>', 'name of the asset list (default: the file name)')
    .option('--skip-invalid', 'store the good lines even when some lines are not targets')
    .addOption(teamOption())
    .addOption(dbOption())
    .addHelpText('after', UPLOAD_HELP);
}

function defineList(assets: Command) {
  return assets
    .command('list')
    .description("list the team's asset lists, newest first")
    .addOption(existingTeamOption())
    .addOption(dbOption());
}

/** The flags of `keyhole assets upload`, as its definition types them. */
export type UploadFlags = FlagsOf<typeof defineUpload>;

/** The flags of `keyhole assets list`, as its definition types them. */
export type ListFlags = FlagsOf<typeof defineList>;

/** `keyhole assets upload FILE [--name N]`, `keyhole assets list`. */
export const registerAssets: CommandRegistrar = (program, runs) => {
  const assets = program.command('assets').description('asset lists: named lists of targets to scan');
  runs(defineUpload(assets), async () => (await import('./upload.js')).uploadAssets);
  runs(defineList(assets), async () => (await import('./list.js')).listAssets);
};
