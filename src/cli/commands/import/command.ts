import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, type FlagsOf, teamOption } from '../../shared/options.js';

const HELP = `
Each import creates a new scan, unless --scan names one: then the results are added to it, and a
result the scan already has (same vuln hash) is skipped, so importing the same file twice into the
same scan adds nothing. Lines with "matcher-status": false (nuclei -ms) are not findings and are
skipped. Bad lines (not a result event, over 32 MiB, nested over 100 deep) are reported as
FILE:LINE and skipped; the good ones are kept (exit code 2). A new scan is "uploaded" once the
whole file is read; an import that stops early marks it "failed" with the reason (exit code 2).

Examples:
  keyhole import nightly.jsonl --name nightly
  keyhole import more.jsonl --scan cmknvrvsii6s73au799g
`;

function defineImport(program: Command) {
  return program
    .command('import')
    .description("import nuclei's or keyhole's JSONL results as an uploaded scan")
    .argument('<file>', 'JSONL file written by `nuclei -jsonl -o` or `keyhole scan -jsonl -o`')
    .option('--name <name>', 'name of the new uploaded scan (default: the file name)')
    .option('--scan <id>', 'add to this existing uploaded scan instead; results it already has are skipped')
    .addOption(teamOption())
    .addOption(dbOption())
    .addHelpText('after', HELP);
}

/** The flags of `keyhole import`, as its definition types them. */
export type ImportFlags = FlagsOf<typeof defineImport>;

/** `keyhole import FILE.jsonl --name N | --scan ID`. */
export const registerImport: CommandRegistrar = (program, runs) => {
  runs(defineImport(program), async () => (await import('./import-file.js')).importFile);
};
