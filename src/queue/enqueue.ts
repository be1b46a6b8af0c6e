import type { AuthEntry, Scan, Store, TemplateRef } from '../store/index.js';
import { planChunks } from './plan.js';

export interface QueuedScanInput {
  readonly teamId: string;
  readonly name: string;
  readonly targets: readonly string[];
  /** With their text: workers run exactly what was queued, whatever the files become. */
  readonly templates: readonly (TemplateRef & { readonly selfContained: boolean })[];
  readonly assetIds: readonly string[];
  readonly chunkSize: number;
  /** The secret-file entries it was planned with (`-sf` at queue time): workers lacking one do not run it. */
  readonly plannedEntries?: readonly AuthEntry[] | undefined;
  /** The scan this one re-runs (`--rescan … --queue`). */
  readonly rescanOf?: string | undefined;
}

/**
 * Records a scan `queued` for workers (`is_cloud`), its targets, its templates' text and its chunks,
 * in one transaction: a worker never sees a scan half written. Secrets are not part of it; each
 * worker brings its own, and the entries it was planned with (kind and scope, never a value) say
 * which workers may run it.
 */
export async function enqueueScan(store: Store, input: QueuedScanInput): Promise<Scan> {
  const selfContained = input.templates.filter((t) => t.selfContained).length;
  const perTarget = input.templates.length - selfContained;
  const chunks = planChunks(input.targets.length, input.chunkSize, { perTarget, selfContained });
  return store.scans.create({
    teamId: input.teamId,
    name: input.name,
    status: 'queued',
    isCloud: true,
    targets: input.targets,
    templates: input.templates.map(({ selfContained: _, ...ref }) => ref),
    assetIds: input.assetIds,
    totalScan: chunks.reduce((sum, c) => sum + c.runs, 0),
    chunks,
    plannedEntries: input.plannedEntries,
    rescanOf: input.rescanOf,
  });
}
