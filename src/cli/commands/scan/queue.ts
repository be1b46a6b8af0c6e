/** `keyhole scan --queue`: the scan recorded `queued` in chunks for workers, instead of run here. */
import { enqueueScan } from '../../../queue/index.js';
import type { PlanTemplate } from '../../../scan/index.js';
import type { AuthEntry, Scan, Store } from '../../../store/index.js';
import { DeferredTemplate, readTemplateText } from '../../../template/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import { plural } from '../../shared/words.js';

export interface QueueRequest {
  readonly store: Store;
  readonly teamId: string;
  readonly name: string;
  readonly targets: readonly string[];
  readonly templates: readonly PlanTemplate[];
  /** The text of templates read from the store rather than from their files (a rescan). */
  readonly texts: ReadonlyMap<PlanTemplate, string> | undefined;
  readonly assetIds: readonly string[];
  readonly rescanOf: string | undefined;
  readonly chunkSize: number;
  /** The secret-file entries that apply to its targets: only workers that have them run it. */
  readonly plannedEntries: readonly AuthEntry[];
}

/** Records the queued scan; its id on stdout (for scripts), what was queued on stderr. */
export async function queueScan(request: QueueRequest, io: CliIo, output: ScanOutput): Promise<number> {
  const { store, templates, texts, targets, chunkSize } = request;
  const refs = await Promise.all(
    templates.map(async (t) => ({
      id: t.id,
      path: t.file,
      content: await storedText(t, texts),
      selfContained: t.selfContained,
    })),
  );
  const scan = await enqueueScan(store, {
    teamId: request.teamId,
    name: request.name,
    targets,
    templates: refs,
    assetIds: request.assetIds,
    chunkSize,
    plannedEntries: request.plannedEntries,
    rescanOf: request.rescanOf,
  });
  const chunks = await store.chunks.ofScan(scan.id);
  io.stdout.write(`${scan.id}\n`);
  output.info(
    `queued scan ${scan.id}: ${plural(targets.length, 'target')} × ${plural(templates.length, 'template')} ` +
      `(${plural(scan.totalScan, 'template run')}) in ${plural(chunks.length, 'chunk')} of up to ${chunkSize} targets; ` +
      'keyhole worker with the same --db runs it',
  );
  if (request.plannedEntries.length > 0) {
    const entries = request.plannedEntries.map((e) => e.label).join(', ');
    output.info(
      `only workers whose secret files have ${entries} run it (the same kind and scope; values stay with the workers)`,
    );
  }
  return ExitCode.ok;
}

/**
 * `-resume` of a scan queued for workers. One that failed is queued again: its chunks done are
 * left as they are (their runs are not made again), the others are pending with their tries from
 * zero; its id on stdout, as `--queue` prints it. One still queued or running needs no resume.
 */
export async function resumeQueuedScan(
  store: Store,
  scan: Scan,
  secretsGiven: boolean,
  io: CliIo,
  output: ScanOutput,
): Promise<number> {
  if (scan.status !== 'failed') {
    throw new UserError(
      `-resume ${scan.id}: the scan is ${scan.status} on the workers; any keyhole worker with the same --db goes on with it (a chunk whose worker died is taken again once its lease runs out)`,
    );
  }
  if (secretsGiven)
    output.info('-sf is not used: the workers that take the scan read their own secret files');
  const requeued = await store.chunks.requeue(scan.id);
  if (requeued === undefined) {
    const now = await store.scans.require(scan.id);
    throw new UserError(
      `-resume ${scan.id}: the scan is ${now.status} now; only a failed queued scan is queued again`,
    );
  }
  io.stdout.write(`${scan.id}\n`);
  output.info(
    `queued scan ${scan.id} again: ${plural(requeued.pending, 'chunk')} to run, ` +
      `${plural(requeued.done, 'chunk')} done before are not run again; keyhole worker with the same --db runs it`,
  );
  return ExitCode.ok;
}

/**
 * A template's text to store with its scan: the text it was compiled from (a deferred template's,
 * or one read from the store), else read again from its file.
 */
export async function storedText(
  template: PlanTemplate,
  texts: ReadonlyMap<PlanTemplate, string> | undefined,
): Promise<string> {
  const known = texts?.get(template) ?? (template instanceof DeferredTemplate ? template.text : undefined);
  return known ?? templateText(template.file);
}

/** A template's text to store with its scan, read again from its file within the template size limit. */
export async function templateText(file: string): Promise<string> {
  const read = await readTemplateText(file);
  if (!read.ok) throw new UserError(`${file}: ${read.reason}`);
  return read.text;
}
