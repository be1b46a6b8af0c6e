import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import type { FlagsOf } from '../../shared/options.js';

const EXAMPLES = `
Examples:
  $ keyhole templates validate nuclei-templates/http/default-logins
  $ keyhole templates validate login.yaml detect.yaml
  $ keyhole templates validate --json templates/ > report.json

Each template is reported as OK, as an error (file:line:col, field and how to fix it), or as
"unsupported: <feature>" when it uses something keyhole does not run yet (it is skipped by scans).
Exit code: 0 when no template has an error, 1 otherwise.
`;

function defineValidate(templates: Command) {
  return templates
    .command('validate')
    .description('Check templates: parse every file, report errors with positions and unsupported features')
    .argument('<paths...>', 'template files or folders (searched recursively for .yaml/.yml)')
    .option('--json', 'print one JSON report instead of text')
    .addHelpText('after', EXAMPLES);
}

/** The flags of `keyhole templates validate`, as its definition types them. */
export type ValidateFlags = FlagsOf<typeof defineValidate>;

/** `keyhole templates validate PATH…`. */
export const registerTemplates: CommandRegistrar = (program, runs) => {
  const templates = program
    .command('templates')
    .description('check nuclei-format templates: parse errors and unsupported features');
  runs(defineValidate(templates), async () => (await import('./validate.js')).validateTemplates);
};
