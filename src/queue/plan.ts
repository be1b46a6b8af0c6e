import type { ChunkInput } from '../store/index.js';

/**
 * Splits a scan's targets into chunks of at most `chunkSize`, in order. Self-contained templates
 * run once per scan, so they run with chunk 0; a scan without targets is one chunk of none.
 */
export function planChunks(
  targetCount: number,
  chunkSize: number,
  templates: { readonly perTarget: number; readonly selfContained: number },
): ChunkInput[] {
  const chunks: ChunkInput[] = [];
  for (let first = 0; first < targetCount || chunks.length === 0; first += chunkSize) {
    const targets = Math.min(chunkSize, Math.max(0, targetCount - first));
    const once = chunks.length === 0 ? templates.selfContained : 0;
    chunks.push({ firstTarget: first, targetCount: targets, runs: once + targets * templates.perTarget });
  }
  return chunks;
}
