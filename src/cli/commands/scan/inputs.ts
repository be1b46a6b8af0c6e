/** What a scan runs, read from the command line and the files it names: templates, targets, secrets. */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { originLabel, type SecretSet } from '../../../secretfile/index.js';
import { formatDiagnostic } from '../../../source/index.js';
import type { Scan } from '../../../store/index.js';
import {
  loadTemplates,
  type ParsedTemplate,
  payloadFileValues,
  type VariableFile,
  VariablePayloadError,
  withVariablePayloads,
} from '../../../template/index.js';
import { UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import { type LoadedSecrets, readSecrets } from '../../shared/session.js';
import type { ScanConfig } from './config.js';
import { ScanTargets } from './targets.js';

/** What a scan runs: templates, targets, secrets. */
export interface ScanInputs {
  readonly templates: readonly ParsedTemplate[];
  readonly unsupported: number;
  readonly targets: readonly string[];
  readonly secrets: LoadedSecrets | undefined;
  /** The scan a `--rescan` re-runs. */
  readonly rescanOf?: Scan;
  /** The text of templates read from the store rather than from their files. */
  readonly texts?: ReadonlyMap<ParsedTemplate, string>;
}

/** What the command line and the files it names give: templates, targets, secrets. */
export interface Given extends Omit<ScanInputs, 'targets'> {
  readonly targets: ScanTargets;
}

export async function readGiven(config: ScanConfig, io: CliIo, output: ScanOutput): Promise<Given> {
  const read = await readTemplates(config, io, output);
  const templatesDir =
    config.templates[0] === undefined ? undefined : await folderOf(resolve(io.cwd, config.templates[0]));
  const secrets = await readSecrets(config, io, output, templatesDir);
  const files = await variableFiles(config.variables, io.cwd, output);
  const templates = withoutLoginTemplates(read.templates, secrets?.set, output).map((template) => {
    const run = withVariablePayloads(template, files);
    if (run instanceof VariablePayloadError) throw new UserError(run.message);
    return run;
  });
  const unsupported = read.unsupported;
  const needsTargets = templates.some((t) => !t.selfContained);
  if (
    needsTargets &&
    config.targets.length === 0 &&
    config.list === undefined &&
    config.assets.length === 0
  ) {
    throw new UserError('no targets: give them with -u URL, -l FILE or --asset ID');
  }
  const targets = new ScanTargets();
  await targets.readGiven(config, io, (text) => output.fatal(text));
  return { templates, unsupported, targets, secrets };
}

/**
 * A secret file's login templates are not scan templates, even in a folder given with -t: run
 * against every target they would post the login's credentials to hosts outside its scope.
 */
export function withoutLoginTemplates(
  templates: readonly ParsedTemplate[],
  secrets: SecretSet | undefined,
  output: ScanOutput,
): ParsedTemplate[] {
  const logins = new Map((secrets?.logins ?? []).map((login) => [login.template, login]));
  const kept: ParsedTemplate[] = [];
  for (const template of templates) {
    const login = logins.get(template.file);
    if (login === undefined) kept.push(template);
    else
      output.info(
        `not scanning with ${template.file}: it is the login template of ${originLabel(login.origin)} of ${login.origin.file}`,
      );
  }
  if (kept.length === 0 && templates.length > 0) {
    throw new UserError(
      'the only templates given are login templates of the secret files; give scan templates with -t',
    );
  }
  return kept;
}

/** The supported templates; templates with errors stop the scan, unsupported ones are skipped. */
async function readTemplates(
  config: ScanConfig,
  io: CliIo,
  output: ScanOutput,
): Promise<{ templates: ParsedTemplate[]; unsupported: number }> {
  if (config.templates.length === 0) throw new UserError('no templates: give a file or folder with -t PATH');
  // Absolute paths, as nuclei reports them in `template-path`.
  const loaded = await loadTemplates(config.templates.map((path) => resolve(io.cwd, path)));
  // A file named twice (itself and through its folder) runs once.
  const results = loaded.filter((r, i) => loaded.findIndex((other) => other.file === r.file) === i);
  const broken = results.filter((r) => r.status === 'error');
  if (broken.length > 0) {
    for (const result of broken)
      for (const d of result.diagnostics) if (d.severity === 'error') output.fatal(formatDiagnostic(d));
    const count = broken.length === 1 ? '1 template has errors' : `${broken.length} templates have errors`;
    throw new UserError(`${count}; fix them or leave them out (keyhole templates validate lists them)`);
  }
  const templates: ParsedTemplate[] = [];
  let unsupported = 0;
  for (const result of results) {
    if (result.status === 'ok') templates.push(result.template);
    else if (result.status === 'unsupported') {
      unsupported++;
      const features = [...new Set(result.features.map((f) => f.feature))].join(', ');
      output.warn(`skipped ${result.file}: uses what keyhole does not run yet: ${features}`);
    }
  }
  if (templates.length === 0) {
    throw new UserError(
      results.length === 0
        ? `no templates found in ${config.templates.join(', ')} (templates are .yaml or .yml files)`
        : 'none of the templates can run (see the notices above)',
    );
  }
  return { templates, unsupported };
}

/** The folder of a `-t` path: itself, or the folder of a template file. */
async function folderOf(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? path : dirname(path);
  } catch {
    return path;
  }
}

/**
 * The `-var name=value` whose value names an existing file: as in nuclei, its lines become the
 * payload values of `name` in the blocks that use it.
 */
async function variableFiles(
  variables: Readonly<Record<string, string>>,
  cwd: string,
  output: ScanOutput,
): Promise<VariableFile[]> {
  const files: VariableFile[] = [];
  for (const [name, value] of Object.entries(variables)) {
    const path = resolve(cwd, value);
    if (value === '' || !(await isFile(path))) continue;
    const values = payloadFileValues(await readFile(path, 'utf8'));
    output.info(`-var ${name}: ${value} is a file; its ${values.length} lines are the values of ${name}`);
    files.push({ name, path, values });
  }
  return files;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
