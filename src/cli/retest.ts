import { type RetestOutcome, type RetestSubject, retestFindings, retestTarget } from '../retest/index.js';
import { type ScanSession, ScanStats } from '../scan/index.js';
import { REDACTED } from '../secretfile/index.js';
import {
  describeLocation,
  type Finding,
  isId,
  isTriagedByHand,
  type Store,
  type VulnStatus,
} from '../store/index.js';
import { ExitCode, UserError } from './exit.js';
import type { CliIo } from './io.js';
import {
  formatRetestSummary,
  type RetestSummary,
  type RetestTally,
  retestJson,
  retestLine,
} from './retest-output.js';
import { type RunConfig, type RunFlags, runConfig } from './shared/request-config.js';
import { ScanOutput } from './shared/scan-output.js';
import { readSecrets, withCommandSession } from './shared/session.js';
import { existingTeam, withStore } from './shared/store.js';

export interface RetestFlags extends RunFlags {
  readonly scan?: string;
}

interface RetestConfig extends RunConfig {
  /** The findings: given vuln ids, or every finding of a scan. */
  readonly select: { readonly vulnIds: readonly string[] } | { readonly scanId: string };
}

export function retestConfig(vulnIds: readonly string[], flags: RetestFlags): RetestConfig {
  const config = runConfig(flags);
  if (vulnIds.length > 0 && flags.scan !== undefined) {
    throw new UserError('give vuln ids or --scan SCAN_ID, not both');
  }
  if (flags.scan !== undefined) return { ...config, select: { scanId: flags.scan } };
  if (vulnIds.length === 0) {
    throw new UserError(
      'nothing to retest: give the vuln ids of findings, or --scan SCAN_ID for all of a scan',
    );
  }
  const malformed = vulnIds.filter((id) => !isId(id));
  if (malformed.length > 0) {
    throw new UserError(
      `not a vuln id: ${malformed.map((id) => JSON.stringify(id)).join(', ')} (vuln ids are 20 characters of 0-9 and a-v)`,
    );
  }
  return { ...config, select: { vulnIds: [...new Set(vulnIds)] } };
}

/** `keyhole retest`: re-runs the findings' templates, records a retest result per finding. */
export async function retest(config: RetestConfig, io: CliIo): Promise<number> {
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
    return withCommandSession(config, secrets, { io, output, counts: stats }, targets, async (session) => {
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
  const colour = io.stdout.isTTY && (io.env.NO_COLOR ?? '') === '';
  const { aborted } = await retestFindings(
    findings,
    {
      concurrency: config.concurrency,
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
  const results = recorded === 1 ? '1 retest result' : `${recorded} retest results`;
  io.stderr.write(`  recorded    ${results} in ${describeLocation(store.location)}\n`);
}

/** The findings to retest; ids the team has no finding for are named (another team's look the same). */
async function selectFindings(
  store: Store,
  teamId: string,
  select: RetestConfig['select'],
): Promise<Finding[]> {
  if ('scanId' in select) {
    const scan = await store.scans.get(select.scanId, teamId);
    if (scan === undefined) throw new UserError(`--scan ${select.scanId}: no scan has that id`);
    const findings: Finding[] = [];
    for await (const finding of store.findings.allOfScan(scan.id)) findings.push(finding);
    return findings;
  }
  const found: Finding[] = [];
  const unknown: string[] = [];
  for (const id of select.vulnIds) {
    const finding = await store.findings.get(id, teamId);
    if (finding === undefined) unknown.push(id);
    else found.push(finding);
  }
  if (unknown.length > 0) {
    const what = unknown.length === 1 ? 'no finding has the vuln id' : 'no findings have the vuln ids';
    throw new UserError(`${what} ${unknown.join(', ')}; nothing was retested`);
  }
  return found;
}

/** The vuln hashes of every finding of the findings' scans, by scan (`whole`: the findings are all of one scan). */
async function findingsOfScans(
  store: Store,
  findings: readonly Finding[],
  whole: boolean,
): Promise<Map<string, Set<string>>> {
  const byScan = new Map<string, Set<string>>();
  if (whole) {
    for (const finding of findings) {
      const hashes = byScan.get(finding.scanId) ?? new Set<string>();
      hashes.add(finding.vulnHash);
      byScan.set(finding.scanId, hashes);
    }
    return byScan;
  }
  for (const scanId of new Set(findings.map((f) => f.scanId))) {
    const hashes = new Set<string>();
    for await (const finding of store.findings.allOfScan(scanId)) hashes.add(finding.vulnHash);
    byScan.set(scanId, hashes);
  }
  return byScan;
}

/**
 * A finding whose request carried a secret, retested without `-sf`, would be asked for without it:
 * "not matched" would then mean "not logged in", and the finding would be recorded as fixed.
 */
function requireSecretsFor(findings: readonly Finding[]): void {
  const withSecrets = findings.filter((f) => (f.event.request ?? '').includes(REDACTED));
  const [first] = withSecrets;
  if (first === undefined) return;
  const which =
    withSecrets.length === 1
      ? `finding ${first.id} was found with a secret (its request shows ${REDACTED})`
      : `${withSecrets.length} of the findings were found with a secret (their requests show ${REDACTED})`;
  throw new UserError(
    `${which}: give the secret files with -sf, or a finding behind a login would be recorded as fixed`,
  );
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
