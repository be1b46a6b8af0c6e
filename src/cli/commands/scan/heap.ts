/**
 * How far V8 lets the heap grow between full collections in a scan of a large library.
 *
 * Such a scan holds little for long (each template's text and summary, the runs in flight: about
 * 70 MB for 10,000 templates), but compiles each template as its runs start and lets it go after,
 * so garbage is made at a steady rate. V8 sets the limit of the next full collection at a multiple
 * of what survived the last one, up to 4× when collecting is cheap, as it is here: the heap grew to
 * about 280 MB between collections, and that growth was most of the scan's peak resident memory
 * (416–484 MB for 10,000 templates × 1 target). At 1.5× it stays under about 130 MB, for more full
 * collections of a small heap (see BENCHMARKS.md, *Scan*). A smaller selection's heap stays small
 * anyway: it is left to V8.
 *
 * `--heap-growing-percent` is read at each collection, so setting it once the templates are known
 * is enough. A value the user gave on node's own command line (`node --heap-growing-percent=100
 * …/keyhole scan`; node refuses the flag in `NODE_OPTIONS`) is theirs: kept.
 */
import { setFlagsFromString } from 'node:v8';

/** Selections of at least this many templates get the limit. */
export const LARGE_SELECTION = 1000;

/** The growth of the heap between full collections, in per cent of what survived the last one. */
export const HEAP_GROWING_PERCENT = 50;

/** V8 takes its flags with dashes or underscores. */
const GROWTH_FLAG = /--heap[-_]growing[-_]percent\b/;

/**
 * The V8 flag that limits the heap's growth for a scan of `templates` templates, or undefined: a
 * small selection, or a growth the user gave node in `execArgv`.
 */
export function heapGrowthFlag(templates: number, execArgv: readonly string[]): string | undefined {
  if (templates < LARGE_SELECTION) return undefined;
  if (execArgv.some((arg) => GROWTH_FLAG.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets {@link heapGrowthFlag} for this process, when there is one; returns it. */
export function limitHeapGrowth(templates: number): string | undefined {
  const flag = heapGrowthFlag(templates, process.execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
  return flag;
}
