import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { groupHelp } from '../../shared/help-groups.js';
import { addOastOptions } from '../../shared/oast-options.js';
import { dbOption, existingTeamOption, type FlagsOf } from '../../shared/options.js';
import {
  addRequestOptions,
  jsonlOption,
  noRedactOption,
  silentOption,
} from '../../shared/request-options.js';

const HELP = `
Each finding's template is run again on the target it was found on, exactly as
the scan ran it (the template text the store kept), in matcher-status mode, and
a retest result is recorded (GET /v1/retest serves it):

  matched      the finding reproduced: status open
  not_matched  it did not: status fixed
  error        the retest could not tell (target unreachable, a secret's login
               failed, the template no longer parses...): status unchanged

A finding reproduces when the re-run matches the same check of the template
(same matcher-name and extractor-name) on the same target: with the same vuln
hash, or at another URL or with other extracted values unless that match is
exactly another finding of the same scan. Findings of one template on one
target share one run; a dynamic secret logs in once for all of them.

Secrets are not stored: give the secret files the scan used with -sf (and the
-var values it needed). Without -sf, findings whose stored request shows
[REDACTED] are refused: retested without their login they would look fixed.
Vuln ids are listed by keyhole findings list --scan ID, printed by keyhole
retest --scan and served by GET /v1/retest.

Output: a line per finding on stdout,
  [vuln_id] template-id target → matched | not matched (fixed) | error: reason
or with -j the recorded retest result as one JSON line (the fields of
GET /v1/retest); the summary goes to stderr. Secret values are shown and
recorded as [REDACTED] unless --no-redact is given.

Exit status: 0 every finding was retested (matched or not); 1 a usage or
configuration error (an unknown vuln id or scan id: nothing is retested); 2 a
retest ended in error, the retests were stopped with Ctrl-C, or could not be
recorded.

Examples:
  $ keyhole retest --scan cn5r7t3kd0ssm6bh1f2g -sf secrets.yaml
  $ keyhole retest cn5r8a3kd0ssm6bh1f30 cn5r8a3kd0ssm6bh1f3g -sf secrets.yaml -ps
  $ keyhole retest --scan cn5r7t3kd0ssm6bh1f2g -j | jq -r 'select(.result_type=="not_matched") | .vuln_id'
`;

function defineRetest(program: Command) {
  const command = program
    .command('retest')
    .description("run findings' templates on their targets again and record whether they still match")
    .argument('[vuln-ids...]', 'vuln ids of the findings to retest')
    .option('--scan <scan-id>', 'retest every finding of this scan');
  return addOastOptions(
    addRequestOptions(command, {
      prefetch: 'before the retests, for every dynamic secret that applies to a target',
      rateLimitScope: 'all the retests',
    }),
  )
    .addOption(jsonlOption('each recorded retest result as a JSON line'))
    .addOption(silentOption('print the results only'))
    .addOption(noRedactOption('show and record secret values instead of [REDACTED]'))
    .addOption(existingTeamOption())
    .addOption(dbOption())
    .addHelpText('after', HELP);
}

/** The flags of `keyhole retest`, as its definition types them. */
export type RetestFlags = FlagsOf<typeof defineRetest>;

/** `keyhole retest VULN_ID… | --scan SCAN_ID`. */
export const registerRetest: CommandRegistrar = (program, runs) => {
  runs(groupHelp(defineRetest(program)), async () => (await import('./retest.js')).retestCommand);
};
