/** `keyhole templates validate PATH…`: every template parsed, its errors and unsupported features reported. */
import { readFileSync } from 'node:fs';
import { unconfiguredHelpers } from '../../../dsl/index.js';
import { type Diagnostic, formatDiagnostic, printable } from '../../../source/index.js';
import { externalVariables, loadTemplates, type TemplateResult } from '../../../template/index.js';
import { ExitCode } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { plural } from '../../shared/words.js';
import type { ValidateFlags } from './command.js';

/** `keyhole templates validate PATH…`: the exit code. */
export async function validateTemplates(
  paths: readonly string[],
  options: ValidateFlags,
  io: CliIo,
): Promise<number> {
  const unconfigured = unconfiguredHelpers(io.env);
  const results = (await loadTemplates(paths))
    .map(withUnsetVariables)
    .map((result) => withUnconfiguredHelpers(result, unconfigured));
  if (options.json === true) printJson(io, results);
  else printText(io, results);
  return results.some((r) => r.status === 'error') ? ExitCode.usage : ExitCode.ok;
}

/**
 * A warning for each variable a template's requests read that nothing in it sets: the requests that
 * read it are skipped unless the scan gives it (`-var name=value`).
 */
function withUnsetVariables(result: TemplateResult): TemplateResult {
  if (result.status !== 'ok') return result;
  const unset = externalVariables(result.template);
  if (unset.length === 0) return result;
  const warnings: Diagnostic[] = unset.map(({ name, pos }) => ({
    severity: 'warning',
    file: result.file,
    line: pos.line,
    col: pos.col,
    path: '',
    message: `reads {{${name}}}, which nothing in the template sets; the requests that read it are skipped unless the scan gives -var ${name}=…`,
  }));
  return { ...result, diagnostics: [...result.diagnostics, ...warnings] };
}

/**
 * A warning for each helper a template calls that fails until the environment configures it
 * (wappalyzer without its fingerprints): the template is valid, but what needs the call's value is
 * skipped.
 */
function withUnconfiguredHelpers(
  result: TemplateResult,
  unconfigured: ReturnType<typeof unconfiguredHelpers>,
): TemplateResult {
  if (result.status !== 'ok' || unconfigured.length === 0) return result;
  let text: string;
  try {
    text = readFileSync(result.file, 'utf8');
  } catch {
    return result;
  }
  const warnings: Diagnostic[] = [];
  for (const { name, howto } of unconfigured) {
    const at = new RegExp(`(?<![\\w.])${name}\\s*\\(`).exec(text)?.index;
    if (at === undefined) continue;
    const before = text.slice(0, at);
    warnings.push({
      severity: 'warning',
      file: result.file,
      line: before.split('\n').length,
      col: at - before.lastIndexOf('\n'),
      path: '',
      message: `calls ${name}(), which fails until it is configured (what needs its value is skipped): ${howto}`,
    });
  }
  return warnings.length === 0 ? result : { ...result, diagnostics: [...result.diagnostics, ...warnings] };
}

interface Counts {
  ok: number;
  error: number;
  unsupported: number;
  warnings: number;
}

function count(results: readonly TemplateResult[]): Counts {
  const counts: Counts = { ok: 0, error: 0, unsupported: 0, warnings: 0 };
  for (const r of results) {
    counts[r.status]++;
    counts.warnings += r.diagnostics.filter((d) => d.severity === 'warning').length;
  }
  return counts;
}

function printText(io: CliIo, results: readonly TemplateResult[]): void {
  for (const result of results) {
    const file = printable(result.file);
    if (result.status === 'ok') io.stdout.write(`OK ${file}\n`);
    else if (result.status === 'unsupported') {
      const features = result.features.map((f) => `${f.feature} (${f.line}:${f.col})`).join(', ');
      io.stdout.write(`unsupported: ${file}: ${features}\n`);
    } else {
      io.stdout.write(`error: ${file}\n`);
    }
    for (const d of result.diagnostics) io.stdout.write(`  ${formatDiagnostic(d)}\n`);
  }
  const c = count(results);
  const total = results.length;
  io.stdout.write(
    `${plural(total, 'template')}: ${c.ok} OK, ${c.error} with errors, ${c.unsupported} unsupported` +
      `${c.warnings > 0 ? `, ${plural(c.warnings, 'warning')}` : ''}\n`,
  );
}

function printJson(io: CliIo, results: readonly TemplateResult[]): void {
  const report = {
    summary: { total: results.length, ...count(results) },
    templates: results.map((r) => ({
      file: r.file,
      status: r.status,
      ...(r.status === 'ok' ? { id: r.template.id, requests: r.template.requestCount } : {}),
      ...(r.status !== 'ok' && r.id !== undefined ? { id: r.id } : {}),
      ...(r.status === 'unsupported' ? { features: r.features } : {}),
      diagnostics: r.diagnostics,
    })),
  };
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
