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
