/**
 * Retests: each finding's template, exactly as the scan ran it, re-run on the finding's target in
 * matcher-status mode, and a verdict per finding. Findings that share a template and a target (two
 * matchers of one template, say) share one run. Runs go `concurrency` at a time, at most `bulkSize`
 * of one template; outcomes are handed over as runs finish.
 */
import { setMaxListeners } from 'node:events';
import { rfc3339, runTemplate, type TemplateRun } from '../engine/index.js';
import { type ResultEvent, redactEvent } from '../event/index.js';
import { BulkQueue, type TargetResolution, type TemplateRunOptions } from '../scan/index.js';
import { entryOf } from '../secretfile/index.js';
import type { Dispatch } from '../send/index.js';
import { TargetError } from '../targets/index.js';
import { loadStoredTemplate, type StoredTemplate } from './stored-template.js';
import { extractorNames, judge, type RunFacts, type SecretRejected, type Verdict } from './verdict.js';

/** A stored finding, as far as a retest needs it (the store's `Finding` is one). */
export interface RetestSubject {
  readonly id: string;
  readonly scanId: string;
  readonly vulnHash: string;
  readonly templateId: string;
  readonly templatePath: string;
  readonly templateEncoded: string;
  /** The host it was found on. */
  readonly target: string;
  /** The finding's event as stored (redacted unless the scan was run with `--no-redact`). */
  readonly event: ResultEvent;
}

export interface RetestOutcome<S extends RetestSubject = RetestSubject> {
  readonly finding: S;
  /** What the finding was retested on: the scan input it was found with. */
  readonly target: string;
  readonly verdict: Verdict;
  /** The re-run's events (matched or not), redacted; for an error, one event saying why. */
  readonly events: readonly ResultEvent[];
  /** The template's text when it was read from its file because the store had none. */
  readonly templateFromFile?: { readonly id: string; readonly path: string; readonly content: string };
}

export interface RetestSettings {
  readonly concurrency: number;
  /** Runs of one template at once (`-bs`); undefined: `concurrency`. */
  readonly bulkSize?: number | undefined;
  /** Template run options (sender, authorizer, `-H`, `-var`, timeouts); matcher-status mode is set here. */
  readonly run: TemplateRunOptions;
  readonly resolveTarget: (target: string, signal?: AbortSignal) => Promise<TargetResolution>;
  /** Vuln hashes of the other findings of a scan (see the verdict). */
  readonly otherFindings: (finding: RetestSubject) => ReadonlySet<string>;
  readonly redact?: (text: string) => string;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
}

/** What a finding is retested on: the scan input its event records, else the host it was found on. */
export function retestTarget(finding: Pick<RetestSubject, 'target' | 'event'>): string {
  const url = finding.event.url;
  return typeof url === 'string' && url !== '' ? url : finding.target;
}

/**
 * Retests `findings`, handing each outcome to `onOutcome` as its run ends (the next run of that
 * worker waits for it: a recorder can keep up). Resolves with `aborted` when `signal` stopped it:
 * findings whose run did not finish get no outcome.
 */
export async function retestFindings<S extends RetestSubject>(
  findings: readonly S[],
  settings: RetestSettings,
  onOutcome: (outcome: RetestOutcome<S>) => Promise<void> | void,
): Promise<{ readonly aborted: boolean }> {
  const groups = groupByRun(findings);
  const { signal } = settings;
  if (signal !== undefined) setMaxListeners(0, signal);
  const workers = Math.max(1, Math.min(settings.concurrency, groups.length));
  const queue = new BulkQueue(
    groups.values(),
    (group) => group.templateId,
    settings.bulkSize ?? workers,
    workers,
  );
  const worker = async (): Promise<void> => {
    for (;;) {
      const group = await queue.take();
      if (group === undefined) return;
      let outcomes: RetestOutcome<S>[] | undefined;
      try {
        if (signal?.aborted === true) return;
        outcomes = await retestGroup(group, settings);
      } finally {
        queue.finish(group);
      }
      if (outcomes === undefined) return;
      for (const outcome of outcomes) await onOutcome(outcome);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { aborted: signal?.aborted === true };
}

interface RunGroup<S extends RetestSubject> {
  readonly templateId: string;
  readonly target: string;
  readonly findings: S[];
}

/** Findings of one template text on one target, in the order given. */
function groupByRun<S extends RetestSubject>(findings: readonly S[]): RunGroup<S>[] {
  const groups = new Map<string, RunGroup<S>>();
  for (const finding of findings) {
    const target = retestTarget(finding);
    const key = JSON.stringify([finding.templateId, finding.templatePath, finding.templateEncoded, target]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { templateId: finding.templateId, target, findings: [finding] });
    else group.findings.push(finding);
  }
  return [...groups.values()];
}

/** The outcomes of one run, or undefined when the run was stopped before it ended. */
async function retestGroup<S extends RetestSubject>(
  group: RunGroup<S>,
  settings: RetestSettings,
): Promise<RetestOutcome<S>[] | undefined> {
  const [first] = group.findings;
  if (first === undefined) return [];
  const stored = await loadStoredTemplate({
    id: first.templateId,
    path: first.templatePath,
    encoded: first.templateEncoded,
  });
  if (stored.status !== 'ok') return errors(group, stored.reason, settings);
  const run = await runStored(stored, group.target, settings);
  if (run === undefined) return undefined;
  if (typeof run === 'string') return errors(group, run, settings);
  const facts = redactedFacts(run, settings.redact);
  const context = { extractedNames: extractorNames(stored.template) };
  const fromFile =
    stored.from === 'file'
      ? { id: stored.template.id, path: first.templatePath, content: stored.text }
      : undefined;
  return group.findings.map((finding) => {
    const verdict = judge(finding, facts, { ...context, otherFindings: settings.otherFindings(finding) });
    return {
      finding,
      target: group.target,
      verdict,
      events:
        verdict.resultType === 'error'
          ? // The run's own transport-error event gives way to the finding's error event.
            [
              ...facts.events.filter((e) => e.error === undefined),
              errorEvent(finding, verdict.reason, settings),
            ]
          : facts.events,
      ...(fromFile === undefined ? {} : { templateFromFile: fromFile }),
    };
  });
}

/** What the run did, with `redact` applied to everything that is shown or stored. */
function redactedFacts(run: StoredRun, redact: ((text: string) => string) | undefined): RunFacts {
  if (redact === undefined) return run;
  return {
    rejected: run.rejected,
    events: run.events.map((event) => redactEvent(event, redact)),
    failures: run.failures.map((f) => ({ ...f, url: redact(f.url), message: redact(f.message) })),
    skipped: run.skipped.map((s) => ({ ...s, reason: redact(s.reason) })),
  };
}

/** A run of a stored template, and the answers in it that turned away a secret. */
type StoredRun = TemplateRun & { readonly rejected: readonly SecretRejected[] };

/** The run, why it could not be made, or undefined when it was stopped. */
async function runStored(
  stored: Extract<StoredTemplate, { status: 'ok' }>,
  target: string,
  settings: RetestSettings,
): Promise<StoredRun | string | undefined> {
  const { signal } = settings;
  const redact = settings.redact ?? ((text: string) => text);
  try {
    // A self-contained template names its own URLs: it runs without the target, as in the scan.
    let url: string | undefined;
    if (!stored.template.selfContained) {
      const resolution = await settings.resolveTarget(target, signal);
      if (stopped(signal)) return undefined;
      if (!resolution.ok) return redact(`target ${target}: ${resolution.message}`);
      url = resolution.url;
    }
    const rejected: SecretRejected[] = [];
    const dispatch: Dispatch = (outgoing, options) =>
      settings.run.dispatch(outgoing, options).then((sent) => {
        if (sent.rejected !== undefined)
          rejected.push({ entry: entryOf(sent.rejected.secret).label, rejection: sent.rejected.rejection });
        return sent;
      });
    const run = await runTemplate(stored.template, url, {
      ...settings.run,
      dispatch,
      matcherStatus: true,
      ...(signal === undefined ? {} : { signal }),
    });
    return run.aborted || stopped(signal) ? undefined : { ...run, rejected };
  } catch (error) {
    if (stopped(signal)) return undefined;
    const message = redact(error instanceof Error ? error.message : String(error));
    return error instanceof TargetError ? `target ${target}: ${message}` : `internal error: ${message}`;
  }
}

function stopped(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function errors<S extends RetestSubject>(
  group: RunGroup<S>,
  reason: string,
  settings: RetestSettings,
): RetestOutcome<S>[] {
  return group.findings.map((finding) => ({
    finding,
    target: group.target,
    verdict: { resultType: 'error', reason },
    events: [errorEvent(finding, reason, settings)],
  }));
}

/**
 * Why a retest could not decide, as nuclei reports a failed request in matcher-status mode: an
 * event of the finding's template and input with `matcher-status: false` and `error`.
 */
function errorEvent(finding: RetestSubject, reason: string, settings: RetestSettings): ResultEvent {
  const e = finding.event;
  const input = {
    ...(e.host === undefined ? {} : { host: e.host }),
    ...(e.port === undefined ? {} : { port: e.port }),
    ...(e.scheme === undefined ? {} : { scheme: e.scheme }),
    ...(e.url === undefined ? {} : { url: e.url }),
    ...(e.path === undefined ? {} : { path: e.path }),
  };
  return {
    'template-id': finding.templateId,
    ...(finding.templatePath === '' ? {} : { 'template-path': finding.templatePath }),
    info: e.info,
    type: e.type,
    ...input,
    timestamp: rfc3339((settings.now ?? (() => new Date()))()),
    'matcher-status': false,
    error: reason,
  };
}
