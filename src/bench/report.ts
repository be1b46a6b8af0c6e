export type BenchSuite = (report: Report) => Promise<void>;

/** Prints benchmark results as Markdown tables, ready to paste into BENCHMARKS.md. */
export class Report {
  constructor(private readonly out: { write(text: string): unknown }) {}

  heading(title: string): void {
    this.out.write(`\n## ${title}\n\n`);
  }

  note(text: string): void {
    this.out.write(`${text}\n\n`);
  }

  table(columns: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
    const cells = rows.map((row) =>
      row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)),
    );
    this.out.write(`| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |\n`);
    for (const row of cells) this.out.write(`| ${row.join(' | ')} |\n`);
    this.out.write('\n');
  }
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Calls `fn` repeatedly for about `ms` milliseconds and returns calls per second. */
export function rate(fn: () => void, ms = 1000, batch = 1000): number {
  for (let i = 0; i < batch; i++) fn();
  let calls = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    now = process.hrtime.bigint();
  }
  return calls / (Number(now - start) / 1e9);
}

/**
 * Runs `loops` concurrent loops that each await `once` one call after another for about `ms`
 * milliseconds; returns the units of work (what `once` resolves to) per second.
 */
export async function loopRate(loops: number, ms: number, once: () => Promise<number>): Promise<number> {
  let done = 0;
  const start = performance.now();
  const deadline = start + ms;
  const loop = async () => {
    while (performance.now() < deadline) {
      // Not `done += await once()`: that reads `done` before waiting, and concurrent loops would lose counts.
      const units = await once();
      done += units;
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  return done / ((performance.now() - start) / 1000);
}

export interface Comparison {
  readonly baseline: number;
  readonly ours: number;
  readonly ratio: number;
}

/**
 * Measures `baseline` and `ours` alternately for `rounds` rounds, so that both see the same load on
 * a shared machine; returns the medians of their rates and of the per-round ratios (ours ÷ baseline).
 */
export async function compareRates(
  rounds: number,
  baseline: () => Promise<number>,
  ours: () => Promise<number>,
): Promise<Comparison> {
  const pairs: [number, number][] = [];
  for (let round = 0; round < rounds; round++) pairs.push([await baseline(), await ours()]);
  return {
    baseline: median(pairs.map(([a]) => a)),
    ours: median(pairs.map(([, b]) => b)),
    ratio: median(pairs.map(([a, b]) => b / a)),
  };
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
