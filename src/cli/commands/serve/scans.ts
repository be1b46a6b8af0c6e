/**
 * The scans `keyhole serve` starts for `POST /v1/scans` and the dashboard's Rescan button. Templates
 * are chosen as `keyhole scan -t/-tags/-id` chooses them, inside the server's templates folder only;
 * a secret file is named, never sent. On PostgreSQL the scan is queued for `keyhole worker`, as
 * `keyhole scan --queue` queues it; on SQLite this process runs it, recorded as `keyhole scan` does.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { type ScanRequestBody, ScanRequestError, type ScanStarter } from '../../../api/index.js';
import { enqueueScan } from '../../../queue/index.js';
import {
  type AuthFigures,
  executeScan,
  figuresSince,
  type PlanTemplate,
  plannedRuns,
  type ScanSession,
  ScanStats,
  StoreRecorder,
} from '../../../scan/index.js';
import type { AuthEntry, Scan, Store } from '../../../store/index.js';
import { checkTarget } from '../../../targets/index.js';
import { UserError } from '../../exit.js';
import { memoryIo } from '../../io.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { plannedSecretEntries } from '../../shared/session.js';
import { DEFAULT_CHUNK_SIZE } from '../scan/command.js';
import { scanConfig } from '../scan/config.js';
import { withoutLoginTemplates } from '../scan/inputs.js';
import { chooseTemplates } from '../scan/library.js';
import { storedText } from '../scan/queue.js';
import { storedScanInputs } from '../scan/rescan.js';
import { entriesUsed, fileHolding, type KnownSecretFile, type SessionSource } from './sessions.js';

export interface ServerScanOptions {
  /** Where `templates` paths are resolved and tags and ids chosen; none: only rescans. */
  readonly templatesDir: string | undefined;
  readonly secretFiles: readonly KnownSecretFile[];
  /** SQLite: the sessions this process runs scans in (PostgreSQL: undefined, workers run them). */
  readonly sessions: SessionSource | undefined;
  readonly signal: AbortSignal;
  readonly log: { info(text: string): void; error(text: string): void };
}

/** What a scan runs, however it was asked for. */
interface ScanWork {
  readonly teamId: string;
  readonly name: string;
  readonly targets: readonly string[];
  readonly templates: readonly PlanTemplate[];
  readonly texts?: ReadonlyMap<PlanTemplate, string> | undefined;
  readonly assetIds: readonly string[];
  readonly plannedEntries: readonly AuthEntry[];
  readonly rescanOf?: string | undefined;
  /** The secret file it runs with (SQLite); undefined: no secret at all. */
  readonly secretFile: KnownSecretFile | undefined;
}

/** Concurrent template runs of a scan this process runs (SQLite). */
const IN_PROCESS_CONCURRENCY = 10;

export class ServerScans {
  private readonly running = new Set<Promise<unknown>>();
  /** Scans running in each session: the last one to end lets failed logins run again. */
  private readonly inSession = new Map<ScanSession, number>();

  constructor(
    private readonly store: Store,
    private readonly options: ServerScanOptions,
  ) {}

  /** `POST /v1/scans`. */
  readonly start: ScanStarter = async (body, teamId) => {
    const { targets, assetIds } = await this.targetsOf(body, teamId);
    const secretFile = this.secretFileOf(body.secret_file);
    const secrets = secretFile?.secrets;
    const output = quietOutput();
    const chosen = await this.templatesOf(body, output);
    const templates = secrets === undefined ? chosen : withoutLoginTemplates(chosen, secrets.set, output);
    if (templates.length === 0)
      throw new ScanRequestError('every template chosen is a login template of the secret file', 'templates');
    const plannedEntries = secrets === undefined ? [] : plannedSecretEntries(secrets.set, targets, output);
    const name = body.name ?? defaultName(targets);
    return this.begin({ teamId, name, targets, templates, assetIds, plannedEntries, secretFile });
  };

  /** The dashboard's Rescan: the stored scan's targets, templates (as stored) and secret entries again. */
  async rescan(scanId: string, teamId: string): Promise<{ id: string; message: string }> {
    let inputs: Awaited<ReturnType<typeof storedScanInputs>>;
    try {
      inputs = await storedScanInputs(this.store, teamId, scanId, undefined, quietOutput());
    } catch (error) {
      if (error instanceof UserError) throw new ScanRequestError(error.message, 'scan_id', 404);
      throw error;
    }
    const original = inputs.rescanOf as Scan;
    const auth = (await this.store.authentication.of([scanId])).get(scanId);
    const plannedEntries = (auth?.entries ?? [])
      .filter((e) => e.planned)
      .map(({ fingerprint, label, kind, types, scope }) => ({ fingerprint, label, kind, types, scope }));
    const held = fileHolding(this.options.secretFiles, entriesUsed(auth));
    if ('missing' in held && this.options.sessions !== undefined)
      throw new ScanRequestError(`the scan cannot run again here: ${held.missing}`, 'scan_id');
    return this.begin({
      teamId,
      name: original.name,
      targets: inputs.targets,
      templates: inputs.templates,
      texts: inputs.texts,
      assetIds: original.assetIds,
      plannedEntries,
      rescanOf: original.id,
      secretFile: 'file' in held ? held.file : undefined,
    });
  }

  /** Resolves once the scans this process runs have stopped (they stop with `options.signal`). */
  async stopped(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async begin(work: ScanWork): Promise<{ id: string; message: string }> {
    const sessions = this.options.sessions;
    if (sessions === undefined) {
      const scan = await enqueueScan(this.store, {
        teamId: work.teamId,
        name: work.name,
        targets: work.targets,
        templates: await Promise.all(
          work.templates.map(async (t) => ({
            id: t.id,
            path: t.file,
            content: await storedText(t, work.texts),
            selfContained: t.selfContained,
          })),
        ),
        assetIds: work.assetIds,
        chunkSize: DEFAULT_CHUNK_SIZE,
        plannedEntries: work.plannedEntries,
        rescanOf: work.rescanOf,
      });
      return { id: scan.id, message: 'Scan queued: keyhole worker runs it' };
    }
    const id = await this.runHere(await sessions.of(work.secretFile), work);
    return { id, message: 'Scan started' };
  }

  /** Runs the scan in this process; resolves with its id once it is recorded. */
  private async runHere(session: ScanSession, work: ScanWork): Promise<string> {
    const plan = { templates: work.templates, targets: work.targets };
    const recorder = new StartedRecorder(this.store, work.teamId);
    const templates = await Promise.all(
      work.templates.map(async (t) => ({ id: t.id, path: t.file, content: await storedText(t, work.texts) })),
    );
    const stats = new ScanStats(plannedRuns(plan));
    const ledger = work.secretFile === undefined ? undefined : this.ledgerOfOneScan(session);
    const run = executeScan(plan, {
      concurrency: IN_PROCESS_CONCURRENCY,
      run: session.runOptions(false),
      stats,
      listener: {},
      resolveTarget: (target, signal) => session.resolveTarget(target, signal),
      redact: session.redact,
      signal: AbortSignal.any([session.signal, this.options.signal]),
      recorder,
      ledger,
      describe: { name: work.name, templates, assetIds: work.assetIds, rescanOf: work.rescanOf },
    }).then((outcome) => {
      const id = recorder.id ?? '?';
      if (outcome.failure === undefined) this.options.log.info(`scan ${id} ${outcome.outcome}`);
      else this.options.log.error(`scan ${id} ${outcome.outcome}: ${outcome.failure}`);
    });
    const tracked = run.finally(() => {
      this.running.delete(tracked);
      this.left(session);
    });
    this.running.add(tracked);
    return Promise.race([recorder.recorded, run.then(() => recorder.recorded)]);
  }

  /**
   * The session's authentication figures from now on, as `keyhole scan` records them: a failed
   * login fails the scan. Logins that failed before are tried again when no other scan of the
   * session is running (as a worker does between chunks); scans running at once in one session
   * share its logins, so their figures overlap.
   */
  private ledgerOfOneScan(session: ScanSession): { figures: () => AuthFigures } {
    const running = this.inSession.get(session) ?? 0;
    if (running === 0) session.forgetFailures();
    this.inSession.set(session, running + 1);
    const before = session.ledger.figures();
    return { figures: () => figuresSince(before, session.ledger.figures()) };
  }

  private left(session: ScanSession): void {
    const running = this.inSession.get(session);
    if (running === undefined) return;
    if (running <= 1) this.inSession.delete(session);
    else this.inSession.set(session, running - 1);
  }

  private async targetsOf(
    body: ScanRequestBody,
    teamId: string,
  ): Promise<{ targets: string[]; assetIds: string[] }> {
    if (body.asset_id !== undefined) {
      if (body.targets !== undefined)
        throw new ScanRequestError('give targets or asset_id, not both', 'asset_id');
      const targets = await this.store.assets.targets(body.asset_id, teamId);
      if (targets === undefined)
        throw new ScanRequestError(`no asset of this team has the id ${body.asset_id}`, 'asset_id', 404);
      if (targets.length === 0) throw new ScanRequestError('the asset holds no targets', 'asset_id');
      return { targets: [...targets], assetIds: [body.asset_id] };
    }
    if (body.targets === undefined)
      throw new ScanRequestError('give the targets to scan, or an asset_id', 'targets');
    for (const target of body.targets) {
      const checked = checkTarget(target);
      if (!checked.ok) throw new ScanRequestError(`${JSON.stringify(target)}: ${checked.message}`, 'targets');
    }
    return { targets: [...new Set(body.targets)], assetIds: [] };
  }

  private secretFileOf(name: string | undefined): KnownSecretFile | undefined {
    if (name === undefined) return undefined;
    const known = this.options.secretFiles.find((f) => f.given === name || basename(f.given) === name);
    if (known !== undefined) return known;
    throw new ScanRequestError(
      this.options.secretFiles.length === 0
        ? 'the server has no secret files (keyhole serve --secrets FILE names them)'
        : 'not one of the secret files the server was started with (keyhole serve --secrets)',
      'secret_file',
    );
  }

  /** The templates chosen as `keyhole scan` chooses them, inside the templates folder only. */
  private async templatesOf(body: ScanRequestBody, output: ScanOutput): Promise<PlanTemplate[]> {
    const paths = body.templates ?? [];
    const tags = body.tags ?? [];
    const ids = body.template_ids ?? [];
    const dir = this.options.templatesDir;
    if (dir === undefined)
      throw new ScanRequestError(
        'the server has no templates folder (keyhole serve --templates-dir DIR names it)',
        'templates',
      );
    if (paths.length + tags.length + ids.length === 0)
      throw new ScanRequestError(
        'give templates (paths in the templates folder), tags or template_ids',
        'templates',
      );
    for (const path of paths) await checkInside(dir, path);
    await checkWords(dir, tags, 'tags');
    await checkWords(dir, ids, 'template_ids');
    try {
      const config = scanConfig({
        ...(paths.length === 0 ? {} : { templates: paths }),
        ...(tags.length === 0 ? {} : { tags }),
        ...(ids.length === 0 ? {} : { templateId: ids }),
        templatesDir: dir,
      });
      const chosen = await chooseTemplates(config, memoryIo({ cwd: dir, env: {} }), output);
      return chosen.templates;
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      const parameter = paths.length > 0 ? 'templates' : tags.length > 0 ? 'tags' : 'template_ids';
      throw new ScanRequestError(error.message, parameter);
    }
  }
}

/** Records the scan as `keyhole scan` does, and says when it is recorded (its id known). */
class StartedRecorder extends StoreRecorder {
  private resolveStarted: (id: string) => void = () => undefined;
  private rejectStarted: (error: unknown) => void = () => undefined;
  readonly recorded = new Promise<string>((resolve, reject) => {
    this.resolveStarted = resolve;
    this.rejectStarted = reject;
  });

  override async start(scan: Parameters<StoreRecorder['start']>[0]): Promise<void> {
    try {
      await super.start(scan);
    } catch (error) {
      this.rejectStarted(error);
      throw error;
    }
    this.resolveStarted(this.id as string);
  }
}

/** A `templates` path: relative, no glob, naming a file or folder inside the templates folder. */
async function checkInside(dir: string, path: string): Promise<void> {
  const shown = JSON.stringify(path);
  if (isAbsolute(path) || /[*?[\]\0]/.test(path))
    throw new ScanRequestError(
      `${shown}: give a path relative to the templates folder, without globs`,
      'templates',
    );
  const root = await realpath(dir);
  const real = await realpath(resolve(root, path)).catch(() => undefined);
  if (real === undefined)
    throw new ScanRequestError(`${shown}: no such file or folder in the templates folder`, 'templates');
  if (real !== root && !real.startsWith(root + sep))
    throw new ScanRequestError(`${shown}: outside the templates folder; give a path inside it`, 'templates');
}

/** Tags and ids are words: never paths, nor the name of a file (`keyhole scan` reads a file of values). */
async function checkWords(dir: string, values: readonly string[], parameter: string): Promise<void> {
  for (const value of values) {
    const named = await stat(resolve(dir, value)).then(
      () => true,
      () => false,
    );
    if (/[/\\\0]/.test(value) || named)
      throw new ScanRequestError(`${JSON.stringify(value)}: give words, not paths`, parameter);
  }
}

function quietOutput(): ScanOutput {
  return new ScanOutput(memoryIo(), { jsonl: false, silent: true, matcherStatus: false, output: undefined });
}

function defaultName(targets: readonly string[]): string {
  const first = targets[0] ?? 'self-contained templates';
  return targets.length > 1 ? `${first} and ${targets.length - 1} more` : first;
}
