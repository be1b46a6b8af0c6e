import { Readable } from 'node:stream';
import { checkTarget, describeTargetProblem, readTargetList } from '../../targets/index.js';

/** A line of an asset upload that is not a target, by its number in the body. */
export interface AssetLineProblem {
  readonly line: number;
  readonly message: string;
}

export interface AssetLines {
  /** Targets as written, in order, without those repeated in the body. */
  readonly targets: readonly string[];
  readonly duplicates: number;
  readonly problems: readonly AssetLineProblem[];
}

/**
 * The targets of an asset upload's body: one per line, as `keyhole assets upload` reads a file
 * (comments, blank lines, duplicates and bad lines the same), or one httpx JSON result per line
 * (`httpx -json`, what `httpx -dashboard` uploads), whose `url` (else `input`) is the target.
 */
export async function readAssetLines(body: Buffer): Promise<AssetLines> {
  const problems: AssetLineProblem[] = [];
  const lines = body.toString('utf8').split('\n');
  const plain = lines.map((line, index) => {
    if (!line.trimStart().startsWith('{')) return line;
    const target = targetOfJsonLine(line);
    if (typeof target === 'string') return target;
    problems.push({ line: index + 1, message: target.problem });
    return '';
  });
  const list = await readTargetList(Readable.from([Buffer.from(plain.join('\n'), 'utf8')]));
  for (const problem of list.problems) {
    problems.push({ line: problem.line, message: describeTargetProblem(problem) });
  }
  return {
    targets: list.targets,
    duplicates: list.duplicates,
    problems: problems.sort((a, b) => a.line - b.line),
  };
}

/** What two targets are compared by: the same target written twice has one key. */
export function targetKey(target: string): string {
  const checked = checkTarget(target);
  return checked.ok ? checked.key : target;
}

function targetOfJsonLine(line: string): string | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const record = value as { url?: unknown; input?: unknown };
  for (const candidate of [record.url, record.input]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return { problem: 'an httpx JSON line needs a "url" (or an "input") string: the target' };
}
