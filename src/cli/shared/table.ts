import { printable } from '../../source/index.js';

/**
 * A plain-text table with aligned columns, for listings in a terminal. Cells hold what users and
 * imported files wrote (names, hosts, template ids), so each is made printable.
 */
export function table(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const shown = rows.map((row) => row.map(printable));
  const widths = columns.map((c, i) => Math.max(c.length, ...shown.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...shown.map(line)].join('\n')}\n`;
}
