/** `keyhole scan`: runs the scan here, or queues it for workers (`--queue`). */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import {
  executeScan,
  noRecorder,
  plannedRuns,
  type ScanPlan,
  type ScanRecorder,
  ScanStats,
  type ScanTemplateRef,
  StoreRecorder,
  type TemplateRunOptions,
} from '../../../scan/index.js';
import type { Store } from '../../../store/index.js';
import type { ParsedTemplate } from '../../../template/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { givenTeam } from '../../shared/options.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { plannedSecretEntries, readSecrets, withCommandSession } from '../../shared/session.js';
import { existingTeam, requireQueueStore, withStore } from '../../shared/store.js';
import type { ScanFlags } from './command.js';
import { type ScanConfig, scanConfig } from './config.js';
import { readGiven, type ScanInputs } from './inputs.js';
import { queueScan, templateText } from './queue.js';
import { storedScanInputs } from './rescan.js';
import { authSummary, summaryOf } from './summary.js';
import { storedAssets } from './targets.js';

/** `keyhole scan` with the flags as commander read them. */
export async function scanCommand(flags: ScanFlags, io: CliIo, command: CommandUnknownOpts): Promise<number> {
  return scan(scanConfig(givenTeam(command, flags)), io);
}

async function scan(config: ScanConfig, io: CliIo): Promise<number> {
  const output = new ScanOutput(io, config);
  try {
    if (config.queue !== undefined) requireQueueStore(config.db, io, '--queue');
    if (config.rescan !== undefined) return await rescan(config, config.rescan, io, output);
    // Everything that can be checked without the store is checked first: a usage error opens nothing.
    const given = await readGiven(config, io, output);
    if (!config.store && config.assets.length === 0)
      return await scanWith(config, io, output, { ...given, targets: given.targets.targets }, undefined);
    return await withStore(io, config.db, { create: true }, async (store) => {
      const team = await store.teams.ensure(config.team);
      await given.targets.readAssets(config.assets, storedAssets(store, team.id));
      const targets = given.targets.targets;
      return scanWith(config, io, output, { ...given, targets }, { store, teamId: team.id });
    });
  } finally {
    output.stopProgress();
  }
}

/** `--rescan ID`: a new scan of what the stored scan ran, recorded in the same store. */
async function rescan(config: ScanConfig, scanId: string, io: CliIo, output: ScanOutput): Promise<number> {
  const secrets = await readSecrets(config, io, output);
  return withStore(io, config.db, { create: false }, async (store) => {
    const team = await existingTeam(store, config.team);
    const inputs = await storedScanInputs(store, team.id, scanId, secrets, output);
    return scanWith(config, io, output, inputs, { store, teamId: team.id });
  });
}

interface TeamStore {
  readonly store: Store;
  readonly teamId: string;
}

async function scanWith(
  config: ScanConfig,
  io: CliIo,
  output: ScanOutput,
  inputs: ScanInputs,
  stored: TeamStore | undefined,
): Promise<number> {
  const { templates, unsupported, secrets, targets, rescanOf, texts } = inputs;
  const plan: ScanPlan = { templates, targets };
  if (targets.length === 0 && templates.some((t) => !t.selfContained)) {
    throw new UserError(
      rescanOf === undefined
        ? 'no targets: the -l file and asset lists given hold none'
        : `--rescan ${rescanOf.id}: the scan has no targets`,
    );
  }
  if (config.queue !== undefined && stored !== undefined) {
    const name = config.name ?? rescanOf?.name ?? defaultName(targets);
    const assetIds = rescanOf?.assetIds ?? config.assets;
    const plannedEntries = secrets === undefined ? [] : plannedSecretEntries(secrets.set, targets, output);
    return queueScan(
      {
        ...stored,
        name,
        targets,
        templates,
        texts,
        assetIds,
        rescanOf: rescanOf?.id,
        plannedEntries,
        ...config.queue,
      },
      io,
      output,
    );
  }
  output.openFile();
  const stats = new ScanStats(plannedRuns(plan));
  try {
    return await withCommandSession(
      config,
      secrets,
      { io, output, counts: stats },
      targets,
      async (session) => {
        const recorder: ScanRecorder =
          stored === undefined || !config.store ? noRecorder : new StoreRecorder(stored.store, stored.teamId);
        const templateList = await templateRefs(templates, recorder !== noRecorder, texts);
        const outcome = await withProgress(output, stats, () =>
          executeScan(plan, {
            concurrency: config.concurrency,
            run: withDslErrors(session.runOptions(config.matcherStatus), io, output),
            stats,
            listener: {
              onEvent: (event) => output.event(event),
              onProblem: (problem) => output.problem(problem),
            },
            resolveTarget: (target, signal) => session.resolveTarget(target, signal),
            redact: session.redact,
            signal: session.signal,
            recorder,
            ledger: secrets === undefined ? undefined : session.ledger,
            describe: {
              name: config.name ?? rescanOf?.name ?? defaultName(targets),
              templates: templateList,
              assetIds: rescanOf?.assetIds ?? config.assets,
              rescanOf: rescanOf?.id,
            },
          }),
        );
        const failure = outcome.failure ?? output.close();
        const redact = session.redact;
        if (failure !== undefined) output.fatal(redact === undefined ? failure : redact(failure));
        const authentication = secrets === undefined ? undefined : authSummary(session.ledger.figures());
        output.truncatedBodies(stats.truncatedBodies);
        output.summary(
          summaryOf(outcome.outcome, stats, plan, unsupported, authentication),
          recorder.location,
        );
        return outcome.outcome === 'finished' && failure === undefined ? ExitCode.ok : ExitCode.failed;
      },
    );
  } finally {
    output.close();
  }
}

/** Runs `work` with the progress bar (on a terminal) following the stats. */
async function withProgress<T>(output: ScanOutput, stats: ScanStats, work: () => Promise<T>): Promise<T> {
  const figures = () => ({
    done: stats.runsDone,
    total: stats.runsTotal,
    requests: stats.requests,
    findings: stats.findingCount,
    errors: stats.errors,
  });
  output.startProgress(figures());
  const ticker = setInterval(() => output.updateProgress(figures()), 250);
  ticker.unref();
  try {
    return await work();
  } finally {
    clearInterval(ticker);
    output.stopProgress();
  }
}

/**
 * The templates as the store keeps them: with their text, so that findings can be retested. The
 * text of a template read from the store (a rescan) is kept as it was.
 */
async function templateRefs(
  templates: readonly ParsedTemplate[],
  withContent: boolean,
  texts: ReadonlyMap<ParsedTemplate, string> | undefined,
): Promise<ScanTemplateRef[]> {
  return Promise.all(
    templates.map(async (t) => ({
      id: t.id,
      path: t.file,
      ...(withContent ? { content: texts?.get(t) ?? (await templateText(t.file)) } : {}),
    })),
  );
}

function defaultName(targets: readonly string[]): string {
  const first = targets[0] ?? 'self-contained templates';
  return targets.length > 1 ? `${first} and ${targets.length - 1} more` : first;
}

/**
 * `SHOW_DSL_ERRORS=true` (nuclei's variable): a dsl matcher expression that fails to evaluate is a
 * warning, once per template and message.
 */
function withDslErrors(run: TemplateRunOptions, io: CliIo, output: ScanOutput): TemplateRunOptions {
  if ((io.env.SHOW_DSL_ERRORS ?? '').toLowerCase() !== 'true') return run;
  const shown = new Set<string>();
  return {
    ...run,
    onDslError: ({ templateId, message }) => {
      const line = `[${templateId}] ${message}`;
      if (shown.has(line)) return;
      shown.add(line);
      output.warn(line);
    },
  };
}
