import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { printable, quote } from '../../../source/index.js';
import { describeTargetProblem, readTargetList } from '../../../targets/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { isFile, nameOfFile } from '../../shared/files.js';
import { withStore } from '../../shared/store.js';
import { plural } from '../../shared/words.js';
import type { UploadFlags } from './command.js';

/** `keyhole assets upload FILE [--name N]`: the exit code. */
export async function uploadAssets(file: string, options: UploadFlags, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, file);
  if (!(await isFile(path))) throw new UserError(`cannot read ${file}: no such file`);
  const list = await readTargetList(createReadStream(path));
  for (const problem of list.problems) {
    io.stderr.write(`${printable(file)}:${problem.line}: ${describeTargetProblem(problem)}\n`);
  }
  if (list.problems.length > 0 && options.skipInvalid !== true) {
    throw new UserError(
      `${list.problems.length} line(s) of ${file} are not targets; nothing stored (fix them, or pass --skip-invalid to store the rest)`,
    );
  }
  if (list.targets.length === 0) throw new UserError(`${file} holds no targets; nothing stored`);
  const stored = await withStore(io, options.db, { create: true }, async (store) => {
    const team = await store.teams.ensure(options.team);
    return store.assets.create({
      teamId: team.id,
      name: options.name ?? nameOfFile(file),
      targets: list.targets,
    });
  });
  const dropped = list.duplicates > 0 ? ` (${plural(list.duplicates, 'duplicate')} dropped)` : '';
  io.stdout.write(
    `uploaded asset list ${stored.id} ${quote(stored.name)}: ${stored.assetCount} targets${dropped}\n`,
  );
  // Bad lines got here only with --skip-invalid: stored what was asked, they are on stderr.
  return ExitCode.ok;
}
