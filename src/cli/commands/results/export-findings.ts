/** `keyhole findings export --scan ID --format F`: a stored scan's findings for other tools. */
import { resolve } from 'node:path';
import { csvExport, jsonExport, sarifExport } from '../../../export/index.js';
import type { Finding } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { MarkdownFolder, TOOL, writeDocument } from '../../shared/exports.js';
import { withStore } from '../../shared/store.js';
import type { FindingsExportFlags } from './command.js';
import { findingFilter, requireScan } from './filters.js';

export async function exportFindings(options: FindingsExportFlags, io: CliIo): Promise<number> {
  const keep = findingFilter(options);
  if (options.format === 'markdown' && options.output === undefined)
    throw new UserError('--format markdown writes a folder of files: give it with -o DIR');
  const findings = await withStore(io, options.db, { create: false }, async (store) => {
    await requireScan(store, options.team, options.scan);
    const kept: Finding[] = [];
    for await (const finding of store.findings.allOfScan(options.scan)) if (keep(finding)) kept.push(finding);
    return kept;
  });
  if (options.format === 'markdown') {
    const folder = MarkdownFolder.open(resolve(io.cwd, options.output ?? ''), '-o');
    for (const finding of findings) folder.add(finding.event);
    return ExitCode.ok;
  }
  const text = documentOf(options.format, findings);
  if (options.output === undefined) io.stdout.write(text);
  else writeDocument(resolve(io.cwd, options.output), '-o', text);
  return ExitCode.ok;
}

function documentOf(format: 'sarif' | 'json' | 'csv', findings: readonly Finding[]): string {
  const events = findings.map((finding) => finding.event);
  if (format === 'sarif') return sarifExport(events, TOOL);
  if (format === 'json') return jsonExport(events);
  return csvExport(findings.map((f) => ({ id: f.id, status: f.vulnStatus, event: f.event })));
}
