/** What an import says it did: its bad lines on stderr, what it imported and skipped on stdout. */
import type { ImportReport } from '../../../importer/index.js';
import { printable, quote } from '../../../source/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { plural } from '../../shared/words.js';

/** Most severe first, as people read a summary. */
const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;

export function printReport(io: CliIo, file: string, report: ImportReport): number {
  for (const error of report.errors) io.stderr.write(`${printable(file)}:${error.line}: ${error.message}\n`);
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
  io.stdout.write(
    `imported ${plural(report.imported, 'finding')} into scan ${scan.id} ${quote(scan.name)} (${scan.status})\n`,
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
