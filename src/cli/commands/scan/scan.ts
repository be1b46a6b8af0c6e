/** `keyhole scan`: runs the scan here, or queues it for workers (`--queue`). */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { usesOast } from '../../../engine/index.js';
import { formatStatsJson, formatStatsLine } from '../../../output/index.js';
import {
  doneRuns,
  executeScan,
  forbiddenEverywhere,
  forbiddenWarning,
  noRecorder,
  type PlanTemplate,
  plannedRuns,
  runKey,
  type ScanPlan,
  type ScanRecorder,
  ScanStats,
  type ScanTemplateRef,
  StoreRecorder,
  type TemplateRunOptions,
} from '../../../scan/index.js';
import { DEFAULT_TEAM, type Store } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { ScanExports } from '../../shared/exports.js';
import { givenTeam } from '../../shared/options.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { plannedSecretEntries, readSecrets, withCommandSession } from '../../shared/session.js';
import { existingTeam, requireQueueStore, withStore } from '../../shared/store.js';
import { plural } from '../../shared/words.js';
import type { ScanFlags } from './command.js';
import { type ScanConfig, scanConfig } from './config.js';
import { limitHeapGrowth } from './heap.js';
import { readGiven, type ScanInputs } from './inputs.js';
import { chooseTemplates, showTemplates } from './library.js';
import { queueScan, resumeQueuedScan, storedText } from './queue.js';
import { storedScanInputs } from './rescan.js';
import { authSummary, summaryOf } from './summary.js';
import { storedAssets } from './targets.js';

/** `keyhole scan` with the flags as commander read them. */
export async function scanCommand(flags: ScanFlags, io: CliIo, command: CommandUnknownOpts): Promise<number> {
  return scan(scanConfig(givenTeam(command, flags), io.cwd), io);
}

async function scan(config: ScanConfig, io: CliIo): Promise<number> {
  const output = new ScanOutput(io, config);
  try {
    if (config.queue !== undefined) requireQueueStore(config.db, io, '--queue');
    if (config.rescan !== undefined) return await rescan(config, config.rescan, io, output);
    if (config.resume !== undefined) return await resume(config, config.resume, io, output);
    const show = config.selection.show;
    if (show !== undefined) {
      const chosen = await chooseTemplates(config, io, output);
      await showTemplates(chosen.templates, show, chosen.sources, io);
      return ExitCode.ok;
    }
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

/**
 * `-resume ID`: the stored scan goes on, less the template runs it finished; one that ran on
 * workers is queued again for them.
 */
async function resume(config: ScanConfig, scanId: string, io: CliIo, output: ScanOutput): Promise<number> {
  const secrets = await readSecrets(config, io, output);
  return withStore(io, config.db, { create: false }, async (store) => {
    const team = await existingTeam(store, config.team);
    const stored = await store.scans.get(scanId, team.id);
    if (stored?.isCloud === true && stored.status !== 'finished') {
      requireQueueStore(config.db, io, '-resume of a queued scan');
      return resumeQueuedScan(store, stored, secrets !== undefined, io, output);
    }
    const inputs = await storedScanInputs(store, team.id, scanId, secrets, output, '-resume');
    const done = new Set((await store.runs.done(scanId)).map(runKey));
    output.info(
      `resuming scan ${scanId}: ${plural(done.size, 'template run')} done before are not made again`,
    );
    return scanWith(config, io, output, inputs, { store, teamId: team.id, resume: { scanId, done } });
  });
}

interface TeamStore {
  readonly store: Store;
  readonly teamId: string;
  /** `-resume`: the scan that goes on, and its runs finished before. */
  readonly resume?: { readonly scanId: string; readonly done: ReadonlySet<string> };
}

async function scanWith(
  config: ScanConfig,
  io: CliIo,
  output: ScanOutput,
  inputs: ScanInputs,
  stored: TeamStore | undefined,
): Promise<number> {
  const { templates, unsupported, broken, secrets, targets, rescanOf, texts } = inputs;
  const plan: ScanPlan = { templates, targets, done: stored?.resume?.done };
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
  limitHeapGrowth(templates.length);
  output.openFile();
  const exports = new ScanExports(config.exports, io.cwd);
  exports.open();
  const stats = new ScanStats(plannedRuns(plan));
  stats.runsDone = doneRuns(plan);
  const needsOast = templates.filter(usesOast).length;
  if (needsOast > 0 && config.oast === undefined) {
    output.warn(`-ni: the requests with {{interactsh-url}} of ${plural(needsOast, 'template')} are skipped`);
  }
  try {
    return await withCommandSession(
      config,
      secrets,
      { io, output, counts: stats, oast: needsOast > 0 ? config.oast : undefined },
      targets,
      async (session) => {
        const recorder: ScanRecorder =
          stored === undefined || !config.store
            ? noRecorder
            : new StoreRecorder(stored.store, stored.teamId, { resume: stored.resume?.scanId });
        const templateList = await templateRefs(templates, recorder !== noRecorder, texts);
        const outcome = await withProgress(output, stats, statsLines(config, io, stats, plan), () =>
          executeScan(plan, {
            concurrency: config.concurrency,
            bulkSize: config.bulkSize,
            run: withDslErrors(session.runOptions(config.matcherStatus), io, output),
            stats,
            listener: {
              onEvent: (event) => {
                output.event(event);
                exports.event(event);
              },
              onProblem: (problem) => output.problem(problem),
            },
            resolveTarget: (target, signal) => session.resolveTarget(target, signal),
            redact: session.redact,
            signal: session.signal,
            recorder,
            ledger: session.ledger,
            describe: {
              name: config.name ?? rescanOf?.name ?? defaultName(targets),
              templates: templateList,
              assetIds: rescanOf?.assetIds ?? config.assets,
              rescanOf: rescanOf?.id,
            },
          }),
        );
        const written = [output.close(), exports.close()].find((problem) => problem !== undefined);
        const failure = outcome.failure ?? written;
        const redact = session.redact;
        if (failure !== undefined) output.fatal(redact === undefined ? failure : redact(failure));
        const figures = session.ledger.figures();
        for (const entry of forbiddenEverywhere(figures)) output.caution(forbiddenWarning(entry));
        const authentication = secrets === undefined ? undefined : authSummary(figures);
        output.truncatedBodies(stats.truncatedBodies);
        output.summary(
          summaryOf(
            outcome.outcome,
            stats,
            plan,
            { unsupported, broken: broken ?? 0 },
            authentication,
            session.skippedHosts(),
            figures.headers,
          ),
          recorder.location,
        );
        if (
          outcome.outcome === 'interrupted' &&
          recorder instanceof StoreRecorder &&
          recorder.id !== undefined
        )
          output.resumeHint(resumeCommand(recorder.id, config, secrets !== undefined));
        return outcome.outcome === 'finished' && failure === undefined ? ExitCode.ok : ExitCode.failed;
      },
    );
  } finally {
    output.close();
    exports.close();
  }
}

/**
 * Runs `work` with its progress shown: `-stats` lines every `-si` seconds and once at the end, or
 * else the progress bar (on a terminal) following the stats.
 */
async function withProgress<T>(
  output: ScanOutput,
  stats: ScanStats,
  statsLines: StatsLines | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (statsLines !== undefined) return withStatsLines(statsLines, work);
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

interface StatsLines {
  readonly intervalSeconds: number;
  readonly print: () => void;
}

async function withStatsLines<T>(lines: StatsLines, work: () => Promise<T>): Promise<T> {
  const ticker = setInterval(lines.print, lines.intervalSeconds * 1000);
  ticker.unref();
  try {
    return await work();
  } finally {
    clearInterval(ticker);
    lines.print();
  }
}

/** `-stats`: nuclei's line (or with `-sj` its JSON object) of the scan's figures, on stderr. */
function statsLines(config: ScanConfig, io: CliIo, stats: ScanStats, plan: ScanPlan): StatsLines | undefined {
  if (config.stats === undefined) return undefined;
  const startedAt = new Date();
  const totalRequests = plan.templates.reduce(
    (sum, t) => sum + t.requestCount * (t.selfContained ? 1 : plan.targets.length),
    0,
  );
  const format = config.stats.json ? formatStatsJson : formatStatsLine;
  const print = () =>
    io.stderr.write(
      format({
        startedAt,
        elapsedMs: stats.elapsedMs,
        templates: plan.templates.length,
        hosts: plan.targets.length,
        requests: stats.requests,
        totalRequests,
        matched: stats.findingCount,
        errors: stats.errors,
      }),
    );
  return { intervalSeconds: config.stats.intervalSeconds, print };
}

/**
 * The templates as the store keeps them: with their text, so that findings can be retested. The
 * text of a template read from the store (a rescan) is kept as it was.
 */
async function templateRefs(
  templates: readonly PlanTemplate[],
  withContent: boolean,
  texts: ReadonlyMap<PlanTemplate, string> | undefined,
): Promise<ScanTemplateRef[]> {
  return Promise.all(
    templates.map(async (t) => ({
      id: t.id,
      path: t.file,
      ...(withContent ? { content: await storedText(t, texts) } : {}),
    })),
  );
}

/**
 * The command that goes on with the scan: its id, the store and team when not the defaults, and the
 * secret files (paths, never values); -H and -var are named, not repeated, as they may hold secrets.
 */
function resumeCommand(scanId: string, config: ScanConfig, withSecrets: boolean): string {
  const words = ['keyhole', 'scan', '-resume', scanId];
  if (config.db !== undefined) words.push('--db', shellWord(config.db));
  if (config.team !== DEFAULT_TEAM) words.push('--team', shellWord(config.team));
  if (withSecrets) for (const file of config.secretFiles) words.push('-sf', shellWord(file));
  const again = [
    config.headers.length > 0 ? '-H' : undefined,
    Object.keys(config.variables).length > 0 ? '-var' : undefined,
  ]
    .filter((flag) => flag !== undefined)
    .join(' and ');
  return again === '' ? words.join(' ') : `${words.join(' ')} (with your ${again} again)`;
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
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
