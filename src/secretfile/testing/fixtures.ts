import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { formatDiagnostic } from '../../source/index.js';
import { type LoadOptions, type LoadResult, loadSecretFiles } from '../load.js';

/**
 * A login template with the named extractors `session` and `csrf`, and defaults for the variables
 * its request reads (an entry may give its own).
 */
export const LOGIN_TEMPLATE = `id: test-login
info:
  name: Test login
  author: keyhole
  severity: info
variables:
  username: guest
  password: guest
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}

        user={{username}}&pass={{password}}
    extractors:
      - type: regex
        name: session
        part: header
        internal: true
        regex:
          - 'sid=[a-z0-9]+'
      - type: regex
        name: csrf
        part: body
        internal: true
        regex:
          - 'csrf=[a-z0-9]+'
`;

/** The folders made by {@link folderWith} in the running test file. */
const folders: string[] = [];

// Registered when a test file first imports this module (each file gets its own copy of it), so
// every folder its tests made is removed once they are done, however the file uses the helpers.
afterAll(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A fresh folder holding `files` (mode 600 unless the name is in `readable`), removed after the
 * test file's tests.
 */
export async function folderWith(
  files: Record<string, string>,
  readable: readonly string[] = [],
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'keyhole-secrets-'));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    await chmod(path, readable.includes(name) ? 0o644 : 0o600);
  }
  return dir;
}

export interface Loaded extends LoadResult {
  readonly dir: string;
  /** Every diagnostic as `file:line:col: path: message`. */
  readonly messages: string[];
}

/**
 * Loads `s.yaml` (or the files named in `load`) from a fresh folder that also holds `login.yaml`
 * and any `extra` files.
 */
export async function loadText(
  text: string,
  options: Partial<LoadOptions> & { extra?: Record<string, string>; name?: string; load?: string[] } = {},
): Promise<Loaded> {
  const name = options.name ?? 's.yaml';
  const dir = await folderWith({ 'login.yaml': LOGIN_TEMPLATE, [name]: text, ...options.extra });
  const result = await loadSecretFiles(options.load ?? [name], { env: {}, ...options, cwd: dir });
  return { ...result, dir, messages: result.diagnostics.map(formatDiagnostic) };
}
