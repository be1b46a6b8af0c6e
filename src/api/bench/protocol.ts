/** What the benchmark and its server process (worker.ts) tell each other. */
import type { StoreLocation } from '../../store/index.js';

export type WorkerData =
  | { readonly kind: 'bare' }
  | { readonly kind: 'api'; readonly location: StoreLocation; readonly cache: boolean };

/** The environment variable that carries the {@link WorkerData} as JSON. */
export const WORKER_DATA_VARIABLE = 'KEYHOLE_BENCH_SERVER';

export interface CacheHits {
  readonly served: number;
  readonly hits: number;
  /** The server process's CPU time (user + system), in microseconds, over the same span. */
  readonly cpuMicros: number;
}
