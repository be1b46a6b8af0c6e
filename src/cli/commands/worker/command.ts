import type { CommandRegistrar } from '../../program.js';
import { collect, collectList, dbOption } from '../../shared/options.js';
import type { WorkerFlags } from './worker.js';

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

Examples:
  $ keyhole worker --db postgres://keyhole@db/keyhole -sf secrets.yaml
  $ KEYHOLE_DB=postgres://keyhole@db/keyhole keyhole worker -sf secrets.yaml -c 50 -rl 300
  $ keyhole worker --db postgres://keyhole@db/keyhole --team red -sf red-secrets.yaml
`;

export const registerWorker: CommandRegistrar = (program, io, setExit) => {
  const command = program
    .command('worker')
    .description('run the chunks of scans queued with scan --queue, until stopped')
    .option('--sf, --secret-file <files>', 'secret file; repeat or give a comma list (also -sf)', collectList)
    .option(
      '--ps, --prefetch-secrets',
      'log in, before taking work, for every dynamic secret that has an input (also -ps)',
    )
    .option('-H, --header <header>', 'header "Name: value" added to every request (repeatable)', collect)
    .option('--var <name=value>', 'template variable (repeatable; also -var)', collect)
    .option('-c, --concurrency <n>', 'template runs at once (default 25)')
    .option('--rl, --rate-limit <n>', 'requests per second for this worker; 0: no limit (default 150)')
    .option('--timeout <seconds>', 'time limit of one request (default 10)')
    .option('--retries <n>', 'times a request that failed in transport is sent again (default 1)')
    .option('--no-redact', 'store findings with secret values instead of [REDACTED]')
    .option('--silent', 'print nothing but errors that stop the worker')
    .option('--lease <seconds>', "how long a chunk stays this worker's without renewal (default 30)")
    .option('--poll <seconds>', 'wait between looks for work when there is none (default 2)')
    .option('--max-attempts <n>', 'tries of a failing chunk before its scan fails (default 3)')
    .option('--team <name>', "run only this team's scans (default: every team's)")
    .addOption(dbOption())
    .addHelpText('after', EXAMPLES);
  command.action(async (flags: WorkerFlags) => {
    const { workerCommand } = await import('./worker.js');
    setExit(await workerCommand(flags, io));
  });
};
