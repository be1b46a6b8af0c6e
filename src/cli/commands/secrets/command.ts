import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { collectList, type FlagsOf } from '../../shared/options.js';

const VALIDATE_EXAMPLES = `
Every problem is printed as file:line:col: field: message. References ({env: …},
{file: …}, {cmd: […]}) are resolved, so commands in the file are run.

Exit status: 0 when every file is valid (warnings allowed), 1 otherwise.

Examples:
  $ keyhole secrets validate secrets.yaml
  $ keyhole secrets validate team.yaml personal.json --json
  $ keyhole secrets validate secrets.yaml --templates-dir ~/nuclei-templates
`;

const MATCH_EXAMPLES = `
For each URL, prints the entry that applies (file, section, index, type) and the
headers, cookies and query parameters it would add, with values shown as
[REDACTED] unless --reveal is given. Several -sf files act as one list in the
order given.

Examples:
  $ keyhole secrets match -sf secrets.yaml https://app.example.com/admin
  $ keyhole secrets match -sf team.yaml,personal.yaml https://api.example.com https://example.org:8443/
  $ keyhole secrets match -sf secrets.yaml https://app.example.com --reveal --json
`;

/** `--json` and `--templates-dir`, which validate and match take alike. */
function addReadingOptions<Args extends unknown[], Opts extends OptionValues, Global extends OptionValues>(
  command: Command<Args, Opts, Global>,
) {
  return command
    .option('--json', 'print the result as JSON')
    .option('--templates-dir <dir>', 'where relative login template paths are looked up last');
}

function defineValidate(secrets: Command) {
  const command = secrets
    .command('validate')
    .description('check secret files and report every problem with its position')
    .argument('<files...>', 'secret files (.yaml, .yml or .json)');
  return addReadingOptions(command).addHelpText('after', VALIDATE_EXAMPLES);
}

function defineMatch(secrets: Command) {
  const command = secrets
    .command('match')
    .description('show which secret each URL gets and what it adds to the request')
    .argument('<urls...>', 'URLs (https:// is assumed when no scheme is given)')
    .option(
      '--sf, --secret-file <files>',
      'secret file; repeat or give a comma list (also -sf)',
      collectList,
      [],
    )
    .option('--reveal', 'show secret values instead of [REDACTED]');
  return addReadingOptions(command).addHelpText('after', MATCH_EXAMPLES);
}

/** The flags of `keyhole secrets validate`, as its definition types them. */
export type ValidateFlags = FlagsOf<typeof defineValidate>;

/** The flags of `keyhole secrets match`, as its definition types them. */
export type MatchFlags = FlagsOf<typeof defineMatch>;

export const registerSecrets: CommandRegistrar = (program, runs) => {
  const secrets = program
    .command('secrets')
    .description('check secret files and see which secret a URL gets')
    .addHelpText(
      'after',
      '\nExamples:\n  $ keyhole secrets validate secrets.yaml\n  $ keyhole secrets match -sf secrets.yaml https://app.example.com/\n',
    );
  runs(defineValidate(secrets), async () => (await import('./validate.js')).validate);
  runs(defineMatch(secrets), async () => (await import('./match.js')).match);
};
