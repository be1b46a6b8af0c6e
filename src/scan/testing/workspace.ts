/** A temporary folder of templates and secret files for scan tests, and the CLI run in-process on it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../cli/io.js';
import { run } from '../../cli/program.js';

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'keyhole-scan-'));

  /** Writes a file (mode 0600: secret files are private) and returns its path relative to the workspace. */
  file(name: string, text: string): string {
    writeFileSync(join(this.dir, name), text, { mode: 0o600 });
    return name;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  /** `keyhole …` in-process, in this folder. */
  async cli(argv: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
    const io = memoryIo({ cwd: this.dir, env });
    const code = await run(argv, io);
    return { code, out: io.out(), err: io.err() };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A template requesting each of `paths` from the target, matching any response containing `ok`. */
export function pathsTemplate(id: string, paths: readonly string[], extra = ''): string {
  return `id: ${id}
info:
  name: ${id}
  author: keyhole
  severity: info
http:
  - method: GET
    path:
${paths.map((p) => `      - "${p}"`).join('\n')}
${extra}    matchers:
      - type: word
        words: ["ok"]
`;
}
