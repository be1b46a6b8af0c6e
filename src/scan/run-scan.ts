/**
 * Runs templates × targets with at most `concurrency` template runs at once, at most `bulkSize` of
 * them of one template (see BulkQueue). Jobs are made one at a
 * time as workers ask for them, so a list of 10,000 targets never becomes 100,000 queued jobs:
 * memory holds the target list and the runs in flight, nothing more. Targets are taken one after
 * another and each runs every template (its connections stay warm); self-contained templates run
 * once, before the targets.
 */
import { setMaxListeners } from 'node:events';
import {
  type RequestOutcome,
  type RunOptions,
  rfc3339,
  runTemplate,
  type SkippedRequest,
  unreachableEvent,
} from '../engine/index.js';
import { type ResultEvent, redactEvent } from '../event/index.js';
import { TargetError } from '../targets/index.js';
import { BulkQueue } from './bulk-queue.js';
import { CompiledTemplates, keptUnusedFor, type PlanTemplate } from './compiled-templates.js';
import type { ScanStats } from './stats.js';
import type { TargetResolution } from './target.js';

/** What a scan runs: every template against every target (self-contained templates once). */
export interface ScanPlan {
  /** Deferred templates are compiled as their runs start and let go after (see CompiledTemplates). */
  readonly templates: readonly PlanTemplate[];
  /** As given: URLs, or hosts without a scheme (resolved by `resolveTarget`). */
  readonly targets: readonly string[];
  /** Runs finished before (`-resume`): they are not made again. */
  readonly done?: ReadonlySet<string> | undefined;
}

/**
 * A template run: the template's id and the target's position in the plan (-1 for a
 * self-contained template's one run).
 */
export interface ScanRun {
  readonly templateId: string;
  readonly target: number;
}

/**
 * The runs of the plan that `done` holds: a run recorded for a template the plan no longer has (one
 * skipped as unsupported since) does not count.
 */
export function doneRuns(plan: ScanPlan): number {
  if (plan.done === undefined || plan.done.size === 0) return 0;
  const selfContained = new Map(plan.templates.map((t) => [t.id, t.selfContained]));
  let count = 0;
  for (const key of plan.done) {
    const separator = key.indexOf('\u0000');
    const target = Number(key.slice(0, separator));
    const once = selfContained.get(key.slice(separator + 1));
    if (once === undefined) continue;
    if (once ? target === -1 : target >= 0 && target < plan.targets.length) count++;
  }
  return count;
}

/** The key of a run in `ScanPlan.done`. */
export function runKey(run: ScanRun): string {
  return `${run.target}\u0000${run.templateId}`;
}

/** The number of template runs a plan makes. */
export function plannedRuns(plan: ScanPlan): number {
  const once = plan.templates.filter((t) => t.selfContained).length;
  return once + (plan.templates.length - once) * plan.targets.length;
}

/** Something that went wrong, for the user to see; its text is redacted already. */
export type ScanProblem =
  | {
      readonly kind: 'request';
      readonly templateId: string;
      readonly url: string;
      /** `refused`: not sent, because its secret's login failed. */
      readonly failure: 'transport' | 'refused' | 'invalid';
      readonly message: string;
    }
  | { readonly kind: 'target'; readonly target: string; readonly message: string }
  /**
   * A request not sent because a `{{…}}` of it could not be evaluated: it reads a variable nothing set,
   * or a helper failed. `message` says which and why.
   */
  | { readonly kind: 'unresolved'; readonly templateId: string; readonly message: string }
  /** The template's `flow:` stopped with an error (an exception, a limit reached). */
  | { readonly kind: 'flow'; readonly templateId: string; readonly target: string; readonly message: string }
  | {
      readonly kind: 'internal';
      readonly templateId: string;
      readonly target: string;
      readonly message: string;
    };

export interface ScanListener {
  /** A result event (a finding, or with `-ms` a non-match), redacted. */
  onEvent?(event: ResultEvent): void;
  onProblem?(problem: ScanProblem): void;
  /** A template run finished (the stats moved); a run stopped by the signal is not done. */
  onRunDone?(run: ScanRun): void;
}

/** What every template run gets, apart from what the scan wires itself (signal, callbacks). */
export type TemplateRunOptions = Omit<RunOptions, 'signal' | 'onEvent' | 'onRequest' | 'onResult'>;

export interface ScanRunSettings {
  /** Template runs in flight at most, all templates together (`-c`). */
  readonly concurrency: number;
  /** Runs of one template in flight at most (`-bs`): targets it runs on at once; undefined: `concurrency`. */
  readonly bulkSize?: number | undefined;
  readonly run: TemplateRunOptions;
  readonly stats: ScanStats;
  readonly listener: ScanListener;
  /** Turns a target as given into the URL to scan (e.g. probing a host without a scheme). */
  readonly resolveTarget: (target: string, signal?: AbortSignal) => Promise<TargetResolution>;
  /** Applied to every text shown or stored (events, problems); identity with `--no-redact`. */
  readonly redact?: ((text: string) => string) | undefined;
  /** Stops the scan: no new run starts, runs in flight are aborted. */
  readonly signal?: AbortSignal;
}

/** Resolves when every run finished, or every run in flight stopped after `signal` aborted. */
export async function runScan(
  plan: ScanPlan,
  settings: ScanRunSettings,
): Promise<{ readonly aborted: boolean }> {
  const { signal } = settings;
  // Every request in flight listens to the scan's signal: hundreds at once is normal here.
  if (signal !== undefined) setMaxListeners(0, signal);
  const workers = Math.max(1, Math.min(settings.concurrency, plannedRuns(plan) - doneRuns(plan)));
  const jobs = new BulkQueue(
    planJobs(plan),
    (job: Job) => job.template.id,
    settings.bulkSize ?? workers,
    workers,
  );
  const perTarget = plan.templates.filter((t) => !t.selfContained).length;
  const compiled = new CompiledTemplates(keptUnusedFor(perTarget, plan.targets.length));
  const worker = async (): Promise<void> => {
    const runner = new JobRunner(settings, compiled);
    for (;;) {
      // Taken before looking at the signal: a worker may have waited for a run to end.
      const job = await jobs.take();
      if (job === undefined) return;
      try {
        if (signal?.aborted === true) return;
        await runner.run(job);
      } finally {
        jobs.finish(job);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { aborted: signal?.aborted === true };
}

interface Job {
  readonly template: PlanTemplate;
  /** Undefined for a self-contained template's one run. */
  readonly target: PendingTarget | undefined;
  readonly run: ScanRun;
}

/** A target as its jobs share it: resolved once, by the first job that needs it. */
interface PendingTarget {
  readonly text: string;
  resolution: Promise<TargetResolution> | undefined;
  /** The resolution once it settled: later jobs of the target then take it without waiting. */
  settled: TargetResolution | undefined;
  reported: boolean;
}

/** The jobs of the plan, in order, less the runs done before. */
function* planJobs(plan: ScanPlan): Generator<Job> {
  const done = plan.done ?? new Set<string>();
  const once = plan.templates.filter((t) => t.selfContained);
  const perTarget = plan.templates.filter((t) => !t.selfContained);
  for (const template of once) {
    const run = { templateId: template.id, target: -1 };
    if (!done.has(runKey(run))) yield { template, target: undefined, run };
  }
  if (perTarget.length === 0) return;
  for (const [position, text] of plan.targets.entries()) {
    const target: PendingTarget = { text, resolution: undefined, settled: undefined, reported: false };
    for (const template of perTarget) {
      const run = { templateId: template.id, target: position };
      if (!done.has(runKey(run))) yield { template, target, run };
    }
  }
}

/**
 * Runs one worker's jobs, one after another. Its run options (with the callbacks that report the
 * current job's events and failures) are made once for all of them rather than once per run.
 */
class JobRunner {
  private readonly options: RunOptions;
  private readonly redact: (text: string) => string;
  /** The job whose template run is in progress: the callbacks report for it. */
  private job: Job | undefined;

  constructor(
    private readonly settings: ScanRunSettings,
    private readonly compiled: CompiledTemplates,
  ) {
    this.redact = settings.redact ?? ((text: string) => text);
    this.options = {
      ...settings.run,
      signal: settings.signal,
      onEvent: (event) => this.onEvent(event),
      onRequest: (outcome) => this.onRequest(outcome),
    };
  }

  async run(job: Job): Promise<void> {
    const { stats, listener, signal } = this.settings;
    const redact = this.redact;
    let url: string | undefined;
    try {
      const known = job.target === undefined ? undefined : this.targetUrl(job.target);
      const resolved = known instanceof Promise ? await known : known;
      if (resolved === null) {
        this.unreachable(job);
        stats.runsDone++;
        listener.onRunDone?.(job.run);
        return;
      }
      url = resolved;
      this.job = job;
      const template = this.compiled.acquire(job.template);
      let run: Awaited<ReturnType<typeof runTemplate>>;
      try {
        run = await runTemplate(template, url, this.options);
      } finally {
        this.compiled.release(job.template);
      }
      if (run.aborted) return;
      if (run.flowError !== undefined) {
        stats.errors++;
        listener.onProblem?.({
          kind: 'flow',
          templateId: job.template.id,
          target: redact(url ?? ''),
          message: redact(run.flowError),
        });
      }
    } catch (error) {
      if (signal?.aborted === true) return;
      stats.errors++;
      const message = redact(error instanceof Error ? error.message : String(error));
      if (error instanceof TargetError)
        listener.onProblem?.({ kind: 'target', target: job.target?.text ?? '', message });
      else
        listener.onProblem?.({ kind: 'internal', templateId: job.template.id, target: url ?? '', message });
    } finally {
      this.job = undefined;
    }
    stats.runsDone++;
    listener.onRunDone?.(job.run);
  }

  /** With `-ms`, nuclei writes a failure event for each template a target that cannot be reached did not run. */
  private unreachable(job: Job): void {
    const resolution = job.target?.settled;
    if (this.settings.run.matcherStatus !== true || resolution === undefined || resolution.ok) return;
    if (this.settings.signal?.aborted === true) return;
    const now = (this.settings.run.now ?? (() => new Date()))();
    this.onEvent(unreachableEvent(job.template, job.target?.text ?? '', resolution.message, rfc3339(now)));
  }

  private onEvent(event: ResultEvent): void {
    const { settings } = this;
    if (event['matcher-status']) settings.stats.finding(event.info.severity);
    settings.listener.onEvent?.(settings.redact === undefined ? event : redactEvent(event, this.redact));
  }

  private onRequest(outcome: RequestOutcome): void {
    const { settings, job, redact } = this;
    if (outcome.kind === 'sent' && outcome.truncatedAt !== undefined)
      settings.stats.truncated(outcome.truncatedAt);
    if (outcome.kind === 'skipped') {
      this.notBuilt(outcome.skip);
      return;
    }
    if (outcome.kind !== 'failed' || settings.signal?.aborted === true) return;
    const { failure } = outcome;
    // A request to a host given up on is counted by the session, which said so once.
    if (failure.kind === 'host-skipped') return;
    settings.stats.errors++;
    settings.listener.onProblem?.({
      kind: 'request',
      templateId: job?.template.id ?? '',
      url: redact(failure.url),
      failure: failure.kind,
      message: redact(failure.message),
    });
  }

  /** A request whose `{{…}}` could not be evaluated: counted and reported (`-ni`'s are announced at the start). */
  private notBuilt(skip: SkippedRequest): void {
    const { settings, job, redact } = this;
    if (skip.cause !== 'unresolved' || settings.signal?.aborted === true) return;
    settings.stats.unresolvedRequests++;
    settings.listener.onProblem?.({
      kind: 'unresolved',
      templateId: job?.template.id ?? '',
      message: redact(skip.reason),
    });
  }

  /** The target's URL (at once when its resolution is known), or null when it cannot be scanned. */
  private targetUrl(target: PendingTarget): string | null | Promise<string | null> {
    if (target.settled !== undefined) return this.resolved(target, target.settled);
    target.resolution ??= this.settings
      .resolveTarget(target.text, this.settings.signal)
      .then((resolution) => {
        target.settled = resolution;
        return resolution;
      });
    return target.resolution.then((resolution) => this.resolved(target, resolution));
  }

  /** The URL of a resolved target; null, reported once per target, when it cannot be scanned. */
  private resolved(target: PendingTarget, resolution: TargetResolution): string | null {
    if (resolution.ok) return resolution.url;
    const { settings } = this;
    if (!target.reported && settings.signal?.aborted !== true) {
      target.reported = true;
      settings.stats.errors++;
      settings.listener.onProblem?.({ kind: 'target', target: target.text, message: resolution.message });
    }
    return null;
  }
}
