import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { printable, quote } from '../../../source/index.js';
import type { Store } from '../../../store/index.js';
import { checkTarget, describeTargetProblem, readTargetList } from '../../../targets/index.js';
import { UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { isFile } from '../../shared/files.js';

/**
 * The targets of a scan, in the order given (`-u` values, the `-l` file's lines, then the asset
 * lists' targets), each target once, compared as the target-list reader compares them.
 */
export class ScanTargets {
  private readonly seen = new Set<string>();
  private readonly list: string[] = [];

  get targets(): readonly string[] {
    return this.list;
  }

  /** `-u` values and the `-l` file: every bad value or line is reported (with its line number) before any request. */
  async readGiven(
    given: { readonly targets: readonly string[]; readonly list: string | undefined },
    io: CliIo,
    report: (text: string) => void,
  ): Promise<void> {
    for (const value of given.targets) {
      const target = value.trim();
      const checked = checkTarget(target);
      if (!checked.ok) throw new UserError(`-u ${quote(value)}: ${checked.message}`);
      this.add(target, checked.key);
    }
    if (given.list !== undefined) {
      for (const target of await readList(given.list, io, report)) this.add(target, keyOf(target));
    }
  }

  /** `--asset ID` values: the targets of stored asset lists (undefined from `lookup`: no such list). */
  async readAssets(
    ids: readonly string[],
    lookup: (id: string) => Promise<readonly string[] | undefined>,
  ): Promise<void> {
    for (const id of ids) {
      const stored = await lookup(id);
      if (stored === undefined) {
        throw new UserError(`--asset ${id}: no asset list has that id (keyhole assets list shows them)`);
      }
      for (const target of stored) this.add(target, keyOf(target));
    }
  }

  private add(target: string, key: string): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(target);
  }
}

/** The asset lists of a team in the store, by id. */
export function storedAssets(
  store: Store,
  teamId: string,
): (id: string) => Promise<readonly string[] | undefined> {
  return (id) => store.assets.targets(id, teamId);
}

function keyOf(target: string): string {
  const checked = checkTarget(target);
  return checked.ok ? checked.key : target;
}

/** A target list file, read a line at a time; any bad line stops the scan before it starts. */
async function readList(file: string, io: CliIo, report: (text: string) => void): Promise<readonly string[]> {
  const path = resolve(io.cwd, file);
  if (!(await isFile(path))) throw new UserError(`-l ${file}: no such file`);
  const list = await readTargetList(createReadStream(path));
  if (list.problems.length > 0) {
    for (const p of list.problems) report(`${printable(file)}:${p.line}: ${describeTargetProblem(p)}`);
    const what =
      list.problems.length === 1
        ? '1 line of FILE is not a target'
        : `${list.problems.length} lines of FILE are not targets`;
    throw new UserError(`${what.replace('FILE', file)}; fix or remove them (nothing was sent)`);
  }
  return list.targets;
}
