/** `keyhole import FILE`: a JSONL file of result events read into a new scan, or added to one. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ImportStoppedError, importJsonl } from '../../../importer/index.js';
import { describeLocation, isStoreUnavailable, resolveLocation } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { reasonOf } from '../../shared/errors.js';
import { nameOfFile } from '../../shared/files.js';
import { withStore } from '../../shared/store.js';
import type { ImportFlags } from './command.js';
import { printReport } from './report.js';

/** `keyhole import FILE`: the exit code. */
export async function importFile(file: string, options: ImportFlags, io: CliIo): Promise<number> {
  if (options.name !== undefined && options.scan !== undefined) {
    throw new UserError('give either --name (new scan) or --scan (add to an existing one), not both');
  }
  const path = resolve(io.cwd, file);
  await requireFile(path, file);
  const storeName = describeLocation(resolveLocation(options.db, io.env, io.cwd));
  const report = await withStore(io, options.db, { create: true }, async (store) => {
    const team = await store.teams.ensure(options.team);
    const name = options.name ?? nameOfFile(file);
    return importJsonl(
      store,
      createReadStream(path),
      { teamId: team.id, ...(options.scan === undefined ? { name } : { scanId: options.scan }) },
      (progress) => {
        if (io.stderr.isTTY) io.stderr.write(`\rread ${progress.lines.toLocaleString('en-US')} lines…`);
      },
    ).catch((error: unknown) => {
      throw error instanceof ImportStoppedError ? stoppedError(file, error, storeName) : error;
    });
  }).finally(() => {
    if (io.stderr.isTTY) io.stderr.write('\r\x1b[K');
  });
  return printReport(io, file, report);
}

/** What an import that stopped early left behind, and how to finish it. */
function stoppedError(file: string, error: ImportStoppedError, storeName: string): UserError {
  const why = isStoreUnavailable(error.cause)
    ? `the store (${storeName}) became unreachable: ${reasonOf(error.cause)}`
    : error.reason;
  const where = `${file}:${error.line}: the import stopped: ${why}`;
  const scan = error.scan;
  if (scan === undefined) return new UserError(`${where}; nothing was imported`, ExitCode.failed);
  switch (scan.left) {
    case 'failed':
      return new UserError(
        `${where}; scan ${scan.id} holds the findings read before and is marked failed: import the file again`,
        ExitCode.failed,
      );
    case 'starting':
      return new UserError(
        `${where}; scan ${scan.id} holds the findings read before and could not be marked failed, so it stays starting (never uploaded): import the file again`,
        ExitCode.failed,
      );
    case 'added-to':
      return new UserError(
        `${where}; the findings read before were added to scan ${scan.id}: import the file again with --scan ${scan.id} to add the rest (findings it has are skipped)`,
        ExitCode.failed,
      );
  }
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
