import type { Command } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { groupHelp } from '../../shared/help-groups.js';
import { dbOption, type FlagsOf } from '../../shared/options.js';
import { addRequestOptions, noRedactOption, silentOption } from '../../shared/request-options.js';

const EXAMPLES = `
A worker takes chunks of scans queued with "keyhole scan --queue" from the
PostgreSQL store, runs them with the same engine, secret handling and request
settings as "keyhole scan", records findings as they are found and keeps each
scan's progress and status live (queued → running → finished | failed). Run
any number of workers on any number of machines against the same --db.

Secrets are never queued or stored: each worker applies the secret files it is
given (-sf) to the hosts they match, and stores findings redacted unless
--no-redact is given. Findings are stored under the team of each scan; --team
keeps a worker (and its secrets) to one team's scans. A scan queued with -sf is
taken only by workers whose secret files have every entry that applies to its
targets (same kind and scope); another worker leaves it, says why, and the
scan's failure_reason shows why it waits. A chunk in which a login fails is
not run unauthenticated: it fails, and is tried again up to --max-attempts.

A worker holds a chunk on a lease it renews while it runs; a worker that dies
has its chunk taken again by another once the lease (--lease) runs out.
Findings recorded twice (a chunk run again) are kept once. SIGTERM or Ctrl-C:
no new chunk is taken, the chunk in hand is given back, the worker exits 0.

Between chunks a worker also runs the retests asked for through the API
(POST /v1/scans/{vuln_id}/retest, the dashboard's Retest button); one without
-sf leaves the findings that were found with a secret to a worker that has them.

Examples:
  $ keyhole worker --db postgres://keyhole@db/keyhole -sf secrets.yaml
  $ KEYHOLE_DB=postgres://keyhole@db/keyhole keyhole worker -sf secrets.yaml -c 50 -rl 300
  $ keyhole worker --db postgres://keyhole@db/keyhole --team red -sf red-secrets.yaml
`;

/** How a worker holds and looks for work unless told otherwise. */
export const WORKER_DEFAULTS = {
  leaseSeconds: 30,
  pollSeconds: 2,
  maxAttempts: 3,
} as const;

function defineWorker(program: Command) {
  const command = program
    .command('worker')
    .description(
      'run the chunks of scans queued with scan --queue and the retests asked for through the API, until stopped',
    );
  return addRequestOptions(command, {
    prefetch: 'before taking work, for every dynamic secret that has an input',
    rateLimitScope: 'this worker',
  })
    .addOption(noRedactOption('store findings with secret values instead of [REDACTED]'))
    .addOption(silentOption('print nothing but errors that stop the worker'))
    .option(
      '--lease <seconds>',
      `how long a chunk stays this worker's without renewal (default ${WORKER_DEFAULTS.leaseSeconds})`,
    )
    .option(
      '--poll <seconds>',
      `wait between looks for work when there is none (default ${WORKER_DEFAULTS.pollSeconds})`,
    )
    .option(
      '--max-attempts <n>',
      `tries of a failing chunk before its scan fails (default ${WORKER_DEFAULTS.maxAttempts})`,
    )
    .option('--team <name>', "run only this team's scans (default: every team's)")
    .addOption(dbOption())
    .addHelpText('after', EXAMPLES);
}

/** The flags of `keyhole worker`, as its definition types them. */
export type WorkerFlags = FlagsOf<typeof defineWorker>;

export const registerWorker: CommandRegistrar = (program, runs) => {
  runs(groupHelp(defineWorker(program)), async () => (await import('./worker.js')).workerCommand);
};
