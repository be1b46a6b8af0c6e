/**
 * The built keyhole run the way nuclei's integration tests run nuclei: one template (or more) of
 * testdata/ against one target, with the flags the case passes; its results are the lines it prints
 * on stdout, here JSONL events. A case is `it` while keyhole gets it right, and `it.fails` tagged
 * with the behaviour in which keyhole differs while it does not (README.md lists them).
 */
import { execFile } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = join(root, 'dist/cli/main.js');
const testdata = join(root, 'test/nuclei/testdata');

/** The behaviours in which keyhole does not yet do what nuclei does; README.md says what it does instead. */
export const KNOWN_DIFFERENCES = {} as const;

export type KnownDifference = keyof typeof KNOWN_DIFFERENCES;

/** A ported case, named by its Go case; `differs` marks it as a known difference. */
export function nucleiCase(
  name: string,
  differs: KnownDifference | undefined,
  body: () => Promise<void>,
  timeoutMs?: number,
): void {
  if (differs === undefined) it(name, body, timeoutMs);
  else it.fails(`${name} [known difference: ${KNOWN_DIFFERENCES[differs]}]`, body, timeoutMs);
}

export interface KeyholeRun {
  readonly exit: number;
  /** The non-empty lines of stdout: one JSONL event per result. */
  readonly results: readonly string[];
  readonly stdout: string;
  readonly stderr: string;
}

/** The path of a file of testdata/ (`protocols/http/get.yaml`); an absolute path is kept. */
export function fixturePath(relative: string): string {
  return isAbsolute(relative) ? relative : join(testdata, relative);
}

/** `keyhole ARGV…`, its exit status and output. */
export function runKeyhole(argv: readonly string[], env: Record<string, string> = {}): Promise<KeyholeRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [binary, ...argv],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const exit = error === null ? 0 : error.code;
        if (typeof exit !== 'number') return reject(error);
        resolve({ exit, results: stdout.split('\n').filter((line) => line !== ''), stdout, stderr });
      },
    );
  });
}

/**
 * nuclei's RunNucleiTemplateAndGetResults: `scan -t TEMPLATE -u TARGET -j --no-store` and the
 * case's flags (nuclei's spelling where keyhole has the flag under another name). No target for a
 * self-contained template, as nuclei's `-target ""`.
 */
export function runTemplate(template: string, target: string | undefined, ...flags: string[]) {
  const targets = target === undefined ? [] : ['-u', target];
  return runKeyhole(['scan', '-t', fixturePath(template), ...targets, '-j', '--no-store', ...flags]);
}

/** nuclei's expectResultsCount: the run ended well and printed one of the expected numbers of results. */
export function expectResultsCount(run: KeyholeRun, ...expected: number[]): void {
  const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  expect(run.exit, output).toBe(0);
  expect(expected, output).toContain(run.results.length);
}

/** The JSONL events of a run. */
export function events(run: KeyholeRun): Record<string, unknown>[] {
  return run.results.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * What the Go cases read from nuclei's `-debug-req` output: the request-target of each line that
 * holds "GET" and three fields.
 */
export function requestTargets(lines: readonly string[]): string[] {
  const targets: string[] = [];
  for (const line of lines) {
    const fields = line.trim().split(/\s+/);
    if (line.includes('GET') && fields.length === 3 && fields[1] !== undefined) targets.push(fields[1]);
  }
  return targets;
}
