import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ImportReport, importJsonl } from '../importer/index.js';
import { ExitCode, UserError } from './exit.js';
import type { ImportOptions } from './import-command.js';
import type { CliIo } from './io.js';
import { withStore } from './store-access.js';

/** Most severe first, as people read a summary. */
const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;

/** `keyhole import FILE`: the exit code. */
export async function importFile(file: string, options: ImportOptions, io: CliIo): Promise<number> {
  if (options.name !== undefined && options.scan !== undefined) {
    throw new UserError('give either --name (new scan) or --scan (add to an existing one), not both');
  }
  const path = resolve(io.cwd, file);
  await requireFile(path, file);
  const report = await withStore(io, options.db, { create: true }, async (store) => {
    const team = await store.teams.ensure(options.team);
    const name = options.name ?? file.split(/[\\/]/).at(-1) ?? file;
    return importJsonl(
      store,
      createReadStream(path),
      { teamId: team.id, ...(options.scan === undefined ? { name } : { scanId: options.scan }) },
      (progress) => {
        if (io.stderr.isTTY) io.stderr.write(`\rread ${progress.lines.toLocaleString('en-US')} lines…`);
      },
    );
  });
  if (io.stderr.isTTY) io.stderr.write('\r\x1b[K');
  return printReport(io, file, report);
}

async function requireFile(path: string, shown: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UserError(`${shown} is not a file`);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot read ${shown}: no such file`);
  }
}

function printReport(io: CliIo, file: string, report: ImportReport): number {
  for (const error of report.errors) io.stderr.write(`${file}:${error.line}: ${error.message}\n`);
  if (report.badLines > report.errors.length) {
    io.stderr.write(`${file}: … and ${report.badLines - report.errors.length} more bad lines\n`);
  }
  if (report.scan === undefined) {
    if (report.badLines > 0) {
      io.stderr.write(`error: no line of ${file} is a result event; nothing imported\n`);
      return ExitCode.failed;
    }
    io.stderr.write(`error: ${file} holds no result events; nothing imported\n`);
    return ExitCode.usage;
  }
  const scan = report.scan;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  io.stdout.write(
    `imported ${plural(report.imported, 'finding')} into scan ${scan.id} "${scan.name}" (${scan.status})\n`,
  );
  io.stdout.write(`  severity: ${SEVERITY_ORDER.map((s) => `${s} ${report.severities[s]}`).join(', ')}\n`);
  const skipped = [
    report.duplicates > 0 ? `${report.duplicates} already in the scan` : '',
    report.unmatched > 0 ? `${report.unmatched} not matched (matcher-status false)` : '',
    report.badLines > 0 ? plural(report.badLines, 'bad line') : '',
  ].filter((s) => s !== '');
  if (skipped.length > 0) io.stdout.write(`  skipped: ${skipped.join(', ')}\n`);
  io.stdout.write(
    `  scan totals: ${scan.totalTarget} targets, ${scan.totalTemplate} templates; ${SEVERITY_ORDER.map((s) => `${s} ${scan.severity[s]}`).join(', ')}\n`,
  );
  return report.badLines > 0 ? ExitCode.failed : ExitCode.ok;
}
