/** What a scan runs, read from the command line and the files it names: templates, targets, secrets. */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { PlanTemplate } from '../../../scan/index.js';
import { loginTemplatePath, originLabel, type SecretSet } from '../../../secretfile/index.js';
import type { Scan } from '../../../store/index.js';
import {
  payloadFileValues,
  type VariableFile,
  VariablePayloadError,
  withVariablePayloads,
} from '../../../template/index.js';
import { UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { isFile } from '../../shared/files.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import { type LoadedSecrets, readSecrets } from '../../shared/session.js';
import type { ScanConfig } from './config.js';
import { chooseTemplates } from './library.js';
import { ScanTargets } from './targets.js';

/** What a scan runs: templates, targets, secrets. */
export interface ScanInputs {
  readonly templates: readonly PlanTemplate[];
  readonly unsupported: number;
  /** Templates of folders skipped for their errors. */
  readonly broken?: number;
  readonly targets: readonly string[];
  readonly secrets: LoadedSecrets | undefined;
  /** The scan a `--rescan` re-runs. */
  readonly rescanOf?: Scan;
  /** The text of templates read from the store rather than from their files. */
  readonly texts?: ReadonlyMap<PlanTemplate, string>;
}

/** What the command line and the files it names give: templates, targets, secrets. */
export interface Given extends Omit<ScanInputs, 'targets'> {
  readonly targets: ScanTargets;
}

export async function readGiven(config: ScanConfig, io: CliIo, output: ScanOutput): Promise<Given> {
  const read = await chooseTemplates(config, io, output);
  const first = read.sources.paths[0];
  const templatesDir = read.sources.templatesDir ?? (first === undefined ? undefined : await folderOf(first));
  const secrets = await readSecrets(config, io, output, templatesDir);
  const files = await variableFiles(config.variables, io.cwd, output);
  const templates = withoutLoginTemplates(read.templates, secrets?.set, output).map((template) => {
    if (files.length === 0) return template;
    const run = template.changed((compiled) => withVariablePayloads(compiled, files));
    if (run instanceof VariablePayloadError) throw new UserError(run.message);
    if (run instanceof Error) throw run;
    return run;
  });
  const { unsupported, broken } = read;
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
  return { templates, unsupported, broken, targets, secrets };
}

/**
 * A secret file's login templates are not scan templates, even in a folder given with -t: run
 * against every target they would post the login's credentials to hosts outside its scope.
 */
export function withoutLoginTemplates<T extends { readonly file: string }>(
  templates: readonly T[],
  secrets: SecretSet | undefined,
  output: ScanOutput,
): T[] {
  const logins = new Map(
    (secrets?.logins ?? []).flatMap((login) => {
      const path = loginTemplatePath(login);
      return path === undefined ? [] : [[path, login] as const];
    }),
  );
  const kept: T[] = [];
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
