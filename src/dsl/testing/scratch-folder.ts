import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered as a test file imports this module: each file (run in isolation) removes its own.
afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new folder under the system's temporary folder, removed once the test file's tests have run. */
export function scratchFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), `keyhole-${prefix}-`));
  made.push(folder);
  return folder;
}
