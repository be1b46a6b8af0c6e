import {
  needsOast,
  type RetestOutcome,
  type RetestSubject,
  retestFindings,
  retestTarget,
} from '../../../retest/index.js';
import { type ScanSession, ScanStats } from '../../../scan/index.js';
import {
  describeLocation,
  type Finding,
  isTriagedByHand,
  type Store,
  type VulnStatus,
} from '../../../store/index.js';
import { ExitCode } from '../../exit.js';
import { type CliIo, colourFor } from '../../io.js';
import { messageOf } from '../../shared/errors.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { readSecrets, withCommandSession } from '../../shared/session.js';
import { existingTeam, withStore } from '../../shared/store.js';
import { plural } from '../../shared/words.js';
import type { RetestFlags } from './command.js';
import { type RetestConfig, retestConfig } from './config.js';
import { findingsOfScans, requireSecretsFor, selectFindings } from './findings.js';
import {
  formatRetestSummary,
  type RetestSummary,
  type RetestTally,
  retestJson,
  retestLine,
} from './output.js';

/** `keyhole retest` with the vuln ids and flags as commander read them. */
export async function retestCommand(
  vulnIds: readonly string[],
  flags: RetestFlags,
  io: CliIo,
): Promise<number> {
  return retest(retestConfig(vulnIds, flags, io.cwd), io);
}

/** `keyhole retest`: re-runs the findings' templates, records a retest result per finding. */
async function retest(config: RetestConfig, io: CliIo): Promise<number> {
  const output = new ScanOutput(io, {
    jsonl: config.jsonl,
    silent: config.silent,
    matcherStatus: false,
    output: undefined,
  });
  // The secret files are checked before the store is opened: a usage error opens nothing.
  const secrets = await readSecrets(config, io, output);
  return withStore(io, config.db, { create: false }, async (store) => {
    const team = await existingTeam(store, config.team);
    const findings = await selectFindings(store, team.id, config.select);
    if (findings.length === 0) {
      output.info('the scan has no findings to retest');
      return ExitCode.ok;
    }
    if (secrets === undefined) requireSecretsFor(findings);
    const others = await findingsOfScans(store, findings, 'scanId' in config.select);
    const stats = new ScanStats(findings.length);
    const targets = [...new Set(findings.map(retestTarget))];
    const oast = (await needsOast(findings)) ? config.oast : undefined;
    const context = { io, output, counts: stats, oast };
    return withCommandSession(config, secrets, context, targets, async (session) => {
      const run = await retestAndRecord(store, findings, others, session, config, io);
      stats.stop();
      if (run.failure !== undefined) output.fatal(run.failure);
      const outcome = run.failure !== undefined ? 'failed' : run.aborted ? 'interrupted' : 'finished';
      if (!config.silent)
        printSummary(io, store, { outcome, findings: findings.length, tally: run.tally, stats });
      return outcome === 'finished' && run.tally.errors === 0 ? ExitCode.ok : ExitCode.failed;
    });
  });
}

interface RetestRun {
  readonly aborted: boolean;
  /** Why recording stopped, if it did (the retests stop with it). */
  readonly failure: string | undefined;
  readonly tally: RetestTally;
}

/** Retests the findings, recording and printing each outcome as it comes. */
async function retestAndRecord(
  store: Store,
  findings: readonly Finding[],
  others: ReadonlyMap<string, ReadonlySet<string>>,
  session: ScanSession,
  config: RetestConfig,
  io: CliIo,
): Promise<RetestRun> {
  const recording = new AbortController();
  const tally: RetestTally = { matched: 0, notMatched: 0, errors: 0, keptTriage: 0 };
  let failure: string | undefined;
  const colour = colourFor(io, io.stdout);
  const { aborted } = await retestFindings(
    findings,
    {
      concurrency: config.concurrency,
      bulkSize: config.bulkSize,
      run: session.runOptions(true),
      resolveTarget: (target, signal) => session.resolveTarget(target, signal),
      otherFindings: (finding) => others.get(finding.scanId) ?? new Set(),
      ...(session.redact === undefined ? {} : { redact: session.redact }),
      signal: AbortSignal.any([session.signal, recording.signal]),
    },
    async (outcome) => {
      if (failure !== undefined) return;
      try {
        const recorded = await record(store, outcome);
        count(tally, outcome, recorded.vulnStatus);
        const line = config.jsonl ? retestJson(recorded) : retestLine(outcome, recorded.vulnStatus, colour);
        io.stdout.write(`${line}\n`);
      } catch (error) {
        failure = `the retest of ${outcome.finding.id} could not be recorded: ${messageOf(error)}`;
        recording.abort(new Error(failure));
      }
    },
  );
  return { aborted, failure, tally };
}

function printSummary(
  io: CliIo,
  store: Store,
  run: { outcome: RetestSummary['outcome']; findings: number; tally: RetestTally; stats: ScanStats },
): void {
  const { tally, stats } = run;
  io.stderr.write(
    formatRetestSummary({
      outcome: run.outcome,
      findings: run.findings,
      tally,
      requests: stats.requests,
      elapsedMs: stats.elapsedMs,
    }),
  );
  const recorded = tally.matched + tally.notMatched + tally.errors;
  const results = plural(recorded, 'retest result');
  io.stderr.write(`  recorded    ${results} in ${describeLocation(store.location)}\n`);
}

async function record(store: Store, outcome: RetestOutcome<Finding | RetestSubject>) {
  const { templateFromFile } = outcome;
  return store.retests.record({
    vulnId: outcome.finding.id,
    resultType: outcome.verdict.resultType,
    events: outcome.events,
    ...(templateFromFile === undefined ? {} : { template: templateFromFile }),
  });
}

function count(tally: RetestTally, outcome: RetestOutcome, status: VulnStatus): void {
  if (outcome.verdict.resultType !== 'error' && isTriagedByHand(status)) tally.keptTriage++;
  switch (outcome.verdict.resultType) {
    case 'matched':
      tally.matched++;
      return;
    case 'not_matched':
      tally.notMatched++;
      return;
    case 'error':
      tally.errors++;
      return;
  }
}
