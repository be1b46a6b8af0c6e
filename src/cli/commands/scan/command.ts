import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { groupHelp } from '../../shared/help-groups.js';
import { addOastOptions } from '../../shared/oast-options.js';
import { collect, collectList, dbOption, type FlagsOf, teamOption } from '../../shared/options.js';
import {
  addRequestOptions,
  jsonlOption,
  noRedactOption,
  silentOption,
} from '../../shared/request-options.js';

const EXAMPLES = `
nuclei's single-dash spellings work too: -target, -sf, -ps, -rl, -ms, -silent,
-jsonl, -var, -timeout, -retries, -tags, -severity, -id, -tc, -tl, -ud, -fr, -dr,
-sni, -at, -mhe, -proxy, -debug, -resume, -stats, -me, -se, -je, ….

Targets: -u (repeatable) and -l FILE (one per line; blank lines and # comments
ignored). A target written without a scheme (app.example.com, 10.0.0.5:8080) is
probed as nuclei does: https:// when something answers over TLS, else http://.

Templates: -t files and folders; without -t, the templates directory
(--templates-dir, -ud, $KEYHOLE_TEMPLATES, else ~/nuclei-templates), where a
relative -t that does not exist here is looked up too. nuclei's filters choose
among them: -tags, -etags, -itags, -s, -es, -id, -eid, -a, -pt, -tc, -it, -et
(exclusions win, -itags/-it win over both); -tl lists the selection, -td prints
it. A template with errors in a folder is skipped with one line (--strict:
stops the scan); one named with -t stops the scan before any request.

Secrets (-sf) are applied to every request whose host they match, redirects and
absolute URLs included; dynamic secrets log in once, on first need (or before
the scan with -ps, for every entry that applies to a target). Before the first
request, entries that apply to no target and targets that get no secret are
warned about. A login that fails is an error even with -silent: requests in its
scope are not sent, the rest of the scan goes on, and the scan fails (exit 2).
The summary shows "authenticated N of M requests" and what each entry did.
Secret values are shown as [REDACTED] everywhere unless --no-redact is given.

Output: findings on stdout as "[template-id] [http] [severity] url [extracted]",
or JSONL with -j; -o FILE writes them to a file as well (JSONL with -j). Notices,
errors, the progress bar (on a terminal) and the summary go to stderr.

Exports, redacted like all output: -me DIR (index.md and one markdown file per
finding, as nuclei writes them), -se FILE (SARIF 2.1.0), -je FILE (one JSON
array of result events). The same from the store: keyhole findings export.

Progress for logs and CI: -stats prints nuclei's progress line on stderr every
-si seconds (default 5) and when the scan ends; -sj (or -stats with -j) prints
nuclei's JSON object instead.

Rescan: --rescan SCAN_ID runs the targets and templates of a stored scan again
as a new scan (is_rescan, counted in the original's rescan_count), each
template as the store kept its text; -sf, -H, -var, -c, -rl and the output
flags apply as usual, -u/-l/--asset/-t are not taken.

Resume: -resume SCAN_ID goes on with a stored scan that was stopped (Ctrl-C
prints the command) or failed, in the same scan: template runs that finished
are not made again and findings are not recorded twice. Its targets and
templates come from the store; give -sf, -H and -var again. A queued scan that
failed is queued again for the workers instead: its chunks done are not run again.

Queue: --queue checks the templates, targets and secret files (when given), records
the scan "queued" in the PostgreSQL store (--db postgres://…) in chunks of
--chunk-size targets, prints its id and exits; any number of "keyhole worker"
processes run the chunks. Secrets are not queued: each worker reads its own -sf;
a scan queued with -sf runs only on workers whose secret files have the entries
that apply to its targets (same kind and scope).

Exit status: 0 the scan ran as asked (findings or not); 1 a usage or
configuration error found before any request (a -ps login that failed too);
2 the scan failed, a login failed during it, or it was stopped with Ctrl-C (a
second Ctrl-C quits at once).

Examples:
  $ keyhole scan -u https://app.example.com -t templates/ -sf secrets.yaml
  $ keyhole scan -l hosts.txt -t http/exposures -j -o findings.jsonl
  $ keyhole scan -u app.example.com -t login-checks/ -sf secrets.yaml -ps -rl 20 -c 10
  $ keyhole scan -u https://app.example.com -sf secrets.yaml -tags cve -s critical,high
  $ keyhole scan --templates-dir ~/nuclei-templates -t http/cves/2024/ -id 'cve-2024-*' -tl
  $ keyhole scan -u https://app.example.com -t detect.yaml -H "X-Scan: keyhole" -var user=admin -ms
  $ keyhole scan --rescan cn5r7t3kd0ssm6bh1f2g -sf secrets.yaml
  $ keyhole scan -resume cn5r7t3kd0ssm6bh1f2g -sf secrets.yaml
  $ keyhole scan --queue -l hosts.txt -t templates/ --db postgres://keyhole@db/keyhole --chunk-size 100
`;

export { OAST_DEFAULTS } from '../../shared/oast-options.js';

/** Seconds between `-stats` lines, as nuclei's default. */
export const DEFAULT_STATS_INTERVAL = 5;

/** Targets per chunk of a queued scan (`--chunk-size`). */
export const DEFAULT_CHUNK_SIZE = 200;

function defineScan(program: Command) {
  const command = program
    .command('scan')
    .description('scan targets with nuclei-format templates, authenticated by secret files')
    .option('-u, --target <url>', 'target URL or host (repeatable)', collect)
    .option('-l, --list <file>', 'file of targets, one per line')
    .option('--asset <id>', 'targets of a stored asset list (repeatable)', collect)
    .option('-t, --templates <path>', 'template file or folder, searched recursively (repeatable)', collect)
    .option(
      '--templates-dir <dir>',
      'the templates library (also -ud): used whole without -t, and where relative -t paths are found (default $KEYHOLE_TEMPLATES, else ~/nuclei-templates)',
    )
    .addOption(
      new Option('--ud, --update-template-dir <dir>', 'nuclei spelling of --templates-dir').hideHelp(),
    );
  const reporting = addSelectionOptions(
    addRequestOptions(command, {
      prefetch: 'before any scan request, for every dynamic secret that applies to a target',
      rateLimitScope: 'the whole scan',
    }),
  )
    .option('-o, --output <file>', 'write findings to a file as well')
    .addOption(jsonlOption('findings as JSONL (nuclei result events)'))
    .addOption(silentOption('print findings only (and the errors that mean the scan is not what was asked)'))
    .option('--ms, --matcher-status', 'also print template runs that matched nothing')
    .option('--stats', 'print progress lines on stderr every -si seconds (instead of the progress bar)')
    .option(
      '--si, --stats-interval <seconds>',
      `seconds between -stats lines (default ${DEFAULT_STATS_INTERVAL})`,
    )
    .option('--sj, --stats-json', 'progress lines as JSON objects (implies -stats)')
    .option(
      '--me, --markdown-export <dir>',
      'write findings to a folder as markdown: index.md and a file each',
    )
    .option('--se, --sarif-export <file>', 'write findings to a SARIF 2.1.0 file')
    .option('--je, --json-export <file>', 'write findings to a file as one JSON array')
    .addOption(noRedactOption('show secret values in output instead of [REDACTED]'));
  return addOastOptions(reporting)
    .option('--name <name>', 'name of the scan in the store (default: its first target)')
    .option('--no-store', 'do not record the scan in the store')
    .option('--rescan <scan-id>', "run a stored scan's targets and templates again, as a new scan")
    .option(
      '--resume <scan-id>',
      'go on with a stopped or failed stored scan: only the runs it did not finish',
    )
    .option('--queue', 'queue the scan for keyhole worker processes (PostgreSQL store); prints its id')
    .option(
      '--chunk-size <n>',
      `with --queue: targets per chunk a worker takes at a time (default ${DEFAULT_CHUNK_SIZE})`,
    )
    .addOption(teamOption())
    .addOption(dbOption())
    .addHelpText('after', EXAMPLES);
}

/** nuclei's filters, with its names and short forms; comma lists may be given, and repeated. */
function addSelectionOptions<Args extends unknown[], Opts extends OptionValues, Global extends OptionValues>(
  command: Command<Args, Opts, Global>,
) {
  return command
    .option('--tags <tags>', 'run the templates with one of these tags', collectList)
    .option('--etags, --exclude-tags <tags>', 'leave out the templates with one of these tags', collectList)
    .option(
      '--itags, --include-tags <tags>',
      'run the templates with these tags even when excluded',
      collectList,
    )
    .option('-s, --severity <severities>', 'run the templates of these severities', collectList)
    .option(
      '--es, --exclude-severity <severities>',
      'leave out the templates of these severities',
      collectList,
    )
    .option(
      '--id, --template-id <ids>',
      'run the templates with these ids (globs: "cve-2024-*")',
      collectList,
    )
    .option('--eid, --exclude-id <ids>', 'leave out the templates with these ids (globs)', collectList)
    .option('-a, --author <authors>', 'run the templates by one of these authors', collectList)
    .option('--pt, --type <types>', 'run the templates of these protocols (keyhole runs http)', collectList)
    .option(
      '--tc, --template-condition <expr>',
      'run the templates whose metadata makes this DSL expression true (repeatable)',
      collect,
    )
    .option(
      '--it, --include-templates <paths>',
      'run these template files or folders even when excluded',
      collectList,
    )
    .option('--et, --exclude-templates <paths>', 'leave out these template files or folders', collectList)
    .option('--tl', 'list the selected templates (id, severity, path) and exit')
    .option('--td, --template-display', "print the selected templates' content and exit")
    .option('--strict', 'a template with errors in a folder stops the scan instead of being skipped');
}

/** The flags of `keyhole scan`, as its definition types them. */
export type ScanFlags = FlagsOf<typeof defineScan>;

export const registerScan: CommandRegistrar = (program, runs) => {
  runs(groupHelp(defineScan(program)), async () => (await import('./scan.js')).scanCommand);
};
