import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AuthSummary, ScanSummary } from '../output/index.js';
import { loadStoredTemplate } from '../retest/index.js';
import {
  type AuthFigures,
  executeScan,
  noRecorder,
  plannedRuns,
  type ScanPlan,
  type ScanRecorder,
  ScanStats,
  type ScanTemplateRef,
  StoreRecorder,
} from '../scan/index.js';
import { originLabel, type SecretSet } from '../secretfile/index.js';
import { formatDiagnostic } from '../source/index.js';
import type { Scan, Store } from '../store/index.js';
import { loadTemplates, type ParsedTemplate } from '../template/index.js';
import { ExitCode, UserError } from './exit.js';
import type { CliIo } from './io.js';
import { type ScanConfig, type ScanFlags, scanConfig } from './scan-options.js';
import { queueScan, templateText } from './scan-queue.js';
import { ScanTargets, storedAssets } from './scan-targets.js';
import { ScanOutput } from './shared/scan-output.js';
import {
  type LoadedSecrets,
  plannedSecretEntries,
  readSecrets,
  withCommandSession,
} from './shared/session.js';
import { existingTeam, requireQueueStore, withStore } from './shared/store.js';

/** `keyhole scan` with the flags as commander read them. */
export async function scanCommand(flags: ScanFlags, io: CliIo): Promise<number> {
  return scan(scanConfig(flags), io);
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

/** What a scan runs: templates, targets, secrets. */
interface ScanInputs {
  readonly templates: readonly ParsedTemplate[];
  readonly unsupported: number;
  readonly targets: readonly string[];
  readonly secrets: LoadedSecrets | undefined;
  /** The scan a `--rescan` re-runs. */
  readonly rescanOf?: Scan;
  /** The text of templates read from the store rather than from their files. */
  readonly texts?: ReadonlyMap<ParsedTemplate, string>;
}

/** What the command line and the files it names give: templates, targets, secrets. */
interface Given extends Omit<ScanInputs, 'targets'> {
  readonly targets: ScanTargets;
}

async function readGiven(config: ScanConfig, io: CliIo, output: ScanOutput): Promise<Given> {
  const read = await readTemplates(config, io, output);
  const templatesDir =
    config.templates[0] === undefined ? undefined : await folderOf(resolve(io.cwd, config.templates[0]));
  const secrets = await readSecrets(config, io, output, templatesDir);
  const templates = withoutLoginTemplates(read.templates, secrets?.set, output);
  const unsupported = read.unsupported;
  const needsTargets = templates.some((t) => !t.selfContained);
  if (
    needsTargets &&
    config.targets.length === 0 &&
    config.list === undefined &&
    config.assets.length === 0
  ) {
    throw new UserError('no targets: give them with -u URL, -l FILE or --asset ID');
  }
  const targets = new ScanTargets();
  await targets.readGiven(config, io, (text) => output.fatal(text));
  return { templates, unsupported, targets, secrets };
}

/**
 * `--rescan ID`: a new scan of the stored scan's targets and templates, each template as the
 * store keeps its text (so the rescan runs what the scan ran, whatever became of the files since);
 * a template whose text was not stored (results imported without it) is read from its path.
 */
async function rescan(config: ScanConfig, scanId: string, io: CliIo, output: ScanOutput): Promise<number> {
  const secrets = await readSecrets(config, io, output);
  return withStore(io, config.db, { create: false }, async (store) => {
    const team = await existingTeam(store, config.team);
    const original = await store.scans.get(scanId, team.id);
    if (original === undefined) {
      throw new UserError(`--rescan ${scanId}: no scan has that id (GET /v1/scans lists them)`);
    }
    const read = await storedTemplates(store, original, output);
    const templates = withoutLoginTemplates(read.templates, secrets?.set, output);
    const targets = await store.scans.targets(original.id);
    const { unsupported, texts } = read;
    return scanWith(
      config,
      io,
      output,
      { templates, unsupported, targets, secrets, rescanOf: original, texts },
      { store, teamId: team.id },
    );
  });
}

/** The stored scan's templates; one that cannot be read stops the rescan, unsupported ones are skipped. */
async function storedTemplates(
  store: Store,
  scan: Scan,
  output: ScanOutput,
): Promise<{ templates: ParsedTemplate[]; unsupported: number; texts: Map<ParsedTemplate, string> }> {
  const refs = await store.scans.templates(scan.id);
  if (refs.length === 0) throw new UserError(`--rescan ${scan.id}: the scan has no templates to run`);
  const templates: ParsedTemplate[] = [];
  const texts = new Map<ParsedTemplate, string>();
  const broken: string[] = [];
  let unsupported = 0;
  for (const ref of refs) {
    const stored = await loadStoredTemplate(ref);
    if (stored.status === 'ok') {
      if (stored.from === 'file') output.info(`${ref.id}: its text was not stored; running ${ref.path}`);
      templates.push(stored.template);
      texts.set(stored.template, stored.text);
    } else if (stored.status === 'unsupported') {
      unsupported++;
      output.warn(`skipped ${ref.id}: ${stored.reason}`);
    } else broken.push(`${ref.id}: ${stored.reason}`);
  }
  if (broken.length > 0) {
    for (const text of broken) output.fatal(text);
    const count = broken.length === 1 ? '1 template' : `${broken.length} templates`;
    throw new UserError(`--rescan ${scan.id}: ${count} of the scan cannot run; nothing was sent`);
  }
  if (templates.length === 0) throw new UserError(`--rescan ${scan.id}: none of its templates can run`);
  return { templates, unsupported, texts };
}

/**
 * A secret file's login templates are not scan templates, even in a folder given with -t: run
 * against every target they would post the login's credentials to hosts outside its scope.
 */
function withoutLoginTemplates(
  templates: readonly ParsedTemplate[],
  secrets: SecretSet | undefined,
  output: ScanOutput,
): ParsedTemplate[] {
  const logins = new Map((secrets?.logins ?? []).map((login) => [login.template, login]));
  const kept: ParsedTemplate[] = [];
  for (const template of templates) {
    const login = logins.get(template.file);
    if (login === undefined) kept.push(template);
    else
      output.info(
        `not scanning with ${template.file}: it is the login template of ${originLabel(login.origin)} of ${login.origin.file}`,
      );
  }
  if (kept.length === 0 && templates.length > 0) {
    throw new UserError(
      'the only templates given are login templates of the secret files; give scan templates with -t',
    );
  }
  return kept;
}

interface StoreAccess {
  readonly store: Store;
  readonly teamId: string;
}

async function scanWith(
  config: ScanConfig,
  io: CliIo,
  output: ScanOutput,
  inputs: ScanInputs,
  stored: StoreAccess | undefined,
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
            run: session.runOptions(config.matcherStatus),
            stats,
            listener: {
              onEvent: (event) => output.event(event),
              onProblem: (problem) => output.problem(problem),
            },
            resolveTarget: (target, signal) => session.resolveTarget(target, signal),
            ...(session.redact === undefined ? {} : { redact: session.redact }),
            signal: session.signal,
            recorder,
            ...(secrets === undefined ? {} : { ledger: session.ledger }),
            describe: {
              name: config.name ?? rescanOf?.name ?? defaultName(targets),
              templates: templateList,
              assetIds: rescanOf?.assetIds ?? config.assets,
              ...(rescanOf === undefined ? {} : { rescanOf: rescanOf.id }),
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

/** The supported templates; templates with errors stop the scan, unsupported ones are skipped. */
async function readTemplates(
  config: ScanConfig,
  io: CliIo,
  output: ScanOutput,
): Promise<{ templates: ParsedTemplate[]; unsupported: number }> {
  if (config.templates.length === 0) throw new UserError('no templates: give a file or folder with -t PATH');
  // Absolute paths, as nuclei reports them in `template-path`.
  const loaded = await loadTemplates(config.templates.map((path) => resolve(io.cwd, path)));
  // A file named twice (itself and through its folder) runs once.
  const results = loaded.filter((r, i) => loaded.findIndex((other) => other.file === r.file) === i);
  const broken = results.filter((r) => r.status === 'error');
  if (broken.length > 0) {
    for (const result of broken)
      for (const d of result.diagnostics) if (d.severity === 'error') output.fatal(formatDiagnostic(d));
    const count = broken.length === 1 ? '1 template has errors' : `${broken.length} templates have errors`;
    throw new UserError(`${count}; fix them or leave them out (keyhole templates validate lists them)`);
  }
  const templates: ParsedTemplate[] = [];
  let unsupported = 0;
  for (const result of results) {
    if (result.status === 'ok') templates.push(result.template);
    else if (result.status === 'unsupported') {
      unsupported++;
      const features = [...new Set(result.features.map((f) => f.feature))].join(', ');
      output.warn(`skipped ${result.file}: uses what keyhole does not run yet: ${features}`);
    }
  }
  if (templates.length === 0) {
    throw new UserError(
      results.length === 0
        ? `no templates found in ${config.templates.join(', ')} (templates are .yaml or .yml files)`
        : 'none of the templates can run (see the notices above)',
    );
  }
  return { templates, unsupported };
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

/** The folder of a `-t` path: itself, or the folder of a template file. */
async function folderOf(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? path : dirname(path);
  } catch {
    return path;
  }
}

function defaultName(targets: readonly string[]): string {
  const first = targets[0] ?? 'self-contained templates';
  return targets.length > 1 ? `${first} and ${targets.length - 1} more` : first;
}

function summaryOf(
  outcome: 'finished' | 'interrupted' | 'failed',
  stats: ScanStats,
  plan: ScanPlan,
  unsupported: number,
  authentication: AuthSummary | undefined,
): ScanSummary {
  return {
    ...(authentication === undefined ? {} : { authentication }),
    outcome,
    targets: plan.targets.length,
    templates: plan.templates.length,
    unsupportedTemplates: unsupported,
    runsDone: stats.runsDone,
    runsTotal: stats.runsTotal,
    requests: stats.requests,
    findings: stats.findings,
    errors: stats.errors,
    elapsedMs: stats.elapsedMs,
  };
}

/** The ledger's figures as the summary shows them. */
export function authSummary(figures: AuthFigures): AuthSummary {
  return {
    requests: figures.requests,
    authenticated: figures.authenticated,
    entries: figures.entries.map(({ entry, ...counts }) => ({ label: entry.label, ...counts })),
  };
}
