/** `keyhole secrets validate FILE…`: every problem of the secret files, with its position. */

import { type LoadResult, loadSecretFiles } from '../../../secretfile/index.js';
import { type Diagnostic, formatDiagnostic, printable } from '../../../source/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { plural } from '../../shared/words.js';
import type { ValidateFlags } from './command.js';

export async function validate(files: readonly string[], options: ValidateFlags, io: CliIo): Promise<number> {
  const result = await loadSecretFiles(files, {
    cwd: io.cwd,
    env: io.env,
    templatesDir: options.templatesDir,
  });
  const summaries = files.map((file) => summarise(file, result));
  const valid = result.secrets !== undefined;
  if (options.json === true) {
    io.stdout.write(
      `${JSON.stringify({ valid, files: summaries, diagnostics: result.diagnostics }, null, 2)}\n`,
    );
  } else {
    for (const d of result.diagnostics) io.stdout.write(`${formatDiagnostic(d)}\n`);
    for (const s of summaries) io.stdout.write(`${describeSummary(s)}\n`);
  }
  return valid ? ExitCode.ok : ExitCode.usage;
}

interface FileSummary {
  readonly file: string;
  readonly valid: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly static: number;
  readonly dynamic: number;
  /** Entries (static or dynamic) with a `verify:` check. */
  readonly verified: number;
}

function summarise(file: string, result: LoadResult): FileSummary {
  const own = result.diagnostics.filter((d: Diagnostic) => d.file === file);
  const errors = own.filter((d) => d.severity === 'error').length;
  const ownSet = result.files.find((f) => f.file === file)?.secrets;
  const entries = ownSet?.entries ?? [];
  const logins = ownSet?.logins ?? [];
  return {
    file,
    valid: errors === 0,
    errors,
    warnings: own.length - errors,
    static: entries.filter((e) => e.kind === 'static').length,
    dynamic: logins.length,
    verified:
      entries.filter((e) => e.kind === 'static' && e.verify !== undefined).length +
      logins.filter((l) => l.verify !== undefined).length,
  };
}

function describeSummary(s: FileSummary): string {
  const warnings = s.warnings > 0 ? `, ${plural(s.warnings, 'warning')}` : '';
  const file = printable(s.file);
  if (s.valid && s.static + s.dynamic === 0) return `${file}: valid${warnings}`;
  const verified = s.verified > 0 ? `, ${s.verified} with verify:` : '';
  if (s.valid) return `${file}: valid (${s.static} static, ${s.dynamic} dynamic${verified}${warnings})`;
  return `${file}: ${plural(s.errors, 'error')}${warnings}`;
}
