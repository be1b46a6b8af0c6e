/**
 * Command definitions load without the work behind them: `keyhole --version` and `--help` start
 * without database drivers, the HTTP client or the API server, and commands load theirs on use.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../api/index.js';
import { DEFAULT_TEAM, KEY_SCOPES } from '../store/index.js';
import { KEY_SCOPE_CHOICES } from './commands/keys/command.js';
import { DEFAULT_RATE_LIMIT_OPTION } from './commands/serve/command.js';
import { DEFAULT_TEAM_OPTION } from './shared/options.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'keyhole-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A module loader hook that reports every module the CLI loads, on stderr.
writeFileSync(
  join(dir, 'hook.mjs'),
  `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write('LOADED ' + result.url + '\\n');
  return result;
}
`,
);
writeFileSync(
  join(dir, 'register.mjs'),
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`,
);

/** The packages and the keyhole modules (relative to dist/) that `keyhole …argv` loads. */
async function loaded(...argv: string[]): Promise<{ packages: string[]; modules: string[] }> {
  const child = spawn(process.execPath, ['--import', join(dir, 'register.mjs'), MAIN, ...argv], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  await new Promise((resolve) => child.on('close', resolve));
  const urls = [...err.matchAll(/^LOADED (.+)$/gm)].map((m) => m[1] ?? '');
  const packages = new Set<string>();
  const modules = new Set<string>();
  for (const url of urls) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (pkg !== undefined) packages.add(pkg);
    else if (url.includes('/dist/')) modules.add(url.slice(url.indexOf('/dist/') + 6));
  }
  return { packages: [...packages].sort(), modules: [...modules].sort() };
}

describe('starting keyhole', () => {
  it('loads only the command definitions for --version and --help', async () => {
    for (const argv of [['--version'], ['--help'], ['scan', '--help'], ['retest', '--help']]) {
      const { packages, modules } = await loaded(...argv);
      expect(packages, argv.join(' ')).toEqual(['@commander-js/extra-typings']);
      expect(
        modules.every((m) => m.startsWith('cli/')),
        modules.join(', '),
      ).toBe(true);
      expect(modules).not.toContain('cli/commands/scan/scan.js');
      expect(modules).not.toContain('cli/shared/store.js');
    }
  });

  it('loads a command group’s work when one of its commands runs', async () => {
    const { packages, modules } = await loaded('db', 'migrate', '--db', join(dir, 'lazy.db'));
    expect(packages).toEqual(expect.arrayContaining(['better-sqlite3', 'kysely']));
    expect(packages).not.toContain('fastify');
    expect(modules).toContain('cli/commands/db/migrate.js');
  });

  it('shows the defaults the commands use', () => {
    expect(DEFAULT_TEAM_OPTION).toBe(DEFAULT_TEAM);
    expect(DEFAULT_RATE_LIMIT_OPTION).toBe(DEFAULT_RATE_LIMIT);
    expect(KEY_SCOPE_CHOICES).toEqual(KEY_SCOPES);
  });
});
