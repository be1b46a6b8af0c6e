/** `keyhole worker`: runs the chunks of queued scans until SIGTERM or Ctrl-C. */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { runWorker, type WorkerSummary } from '../../../queue/index.js';
import { entriesOf, loginTemplatePath } from '../../../secretfile/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { numberFlag, runConfig } from '../../shared/request-config.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { readSecrets, withCommandSession } from '../../shared/session.js';
import { requireQueueStore, withStore } from '../../shared/store.js';
import { plural } from '../../shared/words.js';
import { oastConfig } from '../scan/oast-config.js';
import { WORKER_DEFAULTS, type WorkerFlags } from './command.js';

export async function workerCommand(flags: WorkerFlags, io: CliIo): Promise<number> {
  const config = runConfig(flags);
  const leaseMs =
    numberFlag(flags.lease, '--lease', WORKER_DEFAULTS.leaseSeconds, { min: 0.1, max: 86_400 }) * 1000;
  const pollMs =
    numberFlag(flags.poll, '--poll', WORKER_DEFAULTS.pollSeconds, { min: 0.05, max: 3600 }) * 1000;
  const maxAttempts = numberFlag(flags.maxAttempts, '--max-attempts', WORKER_DEFAULTS.maxAttempts, {
    min: 1,
    max: 100,
    integer: true,
  });
  requireQueueStore(config.db, io, 'keyhole worker');
  const oast = oastConfig(flags, io.cwd);
  const output = new ScanOutput(io, {
    jsonl: false,
    silent: config.silent,
    matcherStatus: false,
    output: undefined,
  });
  const secrets = await readSecrets(config, io, output);
  const logins = new Set(secrets?.set.logins.flatMap((login) => loginTemplatePath(login) ?? []) ?? []);
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  return withStore(io, config.db, { create: true }, async (store) => {
    const teamId = flags.team === undefined ? undefined : (await store.teams.ensure(flags.team)).id;
    const context = { io, output, oast, oastOnDemand: true };
    return withCommandSession(config, secrets, context, undefined, async (session) => {
      const whose = flags.team === undefined ? '' : ` of team ${flags.team}`;
      output.info(`worker ${id} waiting for queued scans and retests${whose}`);
      const summary = await runWorker(store, session, {
        id,
        teamId,
        concurrency: config.concurrency,
        bulkSize: config.bulkSize,
        leaseMs,
        pollMs,
        maxAttempts,
        isLoginTemplate: (path) => logins.has(path),
        secretEntries: secrets === undefined ? [] : entriesOf(secrets.set).map((e) => e.fingerprint),
        log: output,
      });
      output.info(`worker stopped: ${describe(summary)}`);
      return ExitCode.ok;
    });
  });
}

function describe(summary: WorkerSummary): string {
  return (
    `${plural(summary.chunksDone, 'chunk')} done, ${summary.chunksGivenBack} given back, ` +
    `${plural(summary.scansFinished, 'scan')} finished, ${plural(summary.findings, 'new finding')}, ` +
    `${plural(summary.retests, 'retest')} run`
  );
}
