/**
 * nuclei's run-time flags on a templates library (a copy of test/library, which mimics
 * nuclei-templates): the default host error budget (-mhe 30) and -nmhe, -nc, and -sj lines.
 */
import { cpSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { type CliIo, memoryIo } from '../../io.js';
import { run } from '../../program.js';

const fixture = fileURLToPath(new URL('../../../../test/library', import.meta.url));

/** Requests of the `many-paths` template added to the copy: more than nuclei's default budget of 30. */
const MANY = 35;

let host: TestHost;
let ws: Workspace;
let library: string;
/** An address where nothing listens: every request to it fails at once. */
let closedOrigin: string;

beforeAll(async () => {
  host = await startHost('127.0.0.1', (request) => ({
    body: 'ok',
    ...(request.path.startsWith('/slow') ? { delayMs: 1300 } : {}),
  }));
  ws = new Workspace();
  library = ws.path('nuclei-templates');
  cpSync(fixture, library, { recursive: true });
  ws.file(
    'nuclei-templates/http/misc/many-paths.yaml',
    pathsTemplate(
      'many-paths',
      Array.from({ length: MANY }, (_, i) => `{{BaseURL}}/p${i}`),
    ),
  );
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedOrigin = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

const scan = (...argv: string[]) => ws.cli(['scan', '--no-store', '--templates-dir', library, ...argv]);

const errors = (err: string) => err.split('\n').filter((line) => line.startsWith('[ERR]'));

describe('keyhole scan on a library against a host that refuses connections', () => {
  it("skips the host after nuclei's default of 30 failures in a row, when no -mhe is given", async () => {
    const result = await scan('-u', closedOrigin, '-id', 'many-paths', '-retries', '0', '-c', '1');
    expect(result.code, result.err).toBe(0);
    expect(errors(result.err)).toHaveLength(30);
    expect(result.err).toContain(
      `[WRN] ${closedOrigin.slice(7)} skipped for the rest of the scan: 30 requests in a row failed`,
    );
    expect(result.err).toContain(`hosts skipped  1 (unresponsive; ${MANY - 30} requests not sent)`);
  });

  it('sends every request with -nmhe, and takes the long spelling -max-host-error', async () => {
    const never = await scan('-u', closedOrigin, '-id', 'many-paths', '-retries', '0', '-c', '1', '-nmhe');
    expect(errors(never.err)).toHaveLength(MANY);
    expect(never.err).not.toContain('skipped for the rest of the scan');
    const budget = await scan(
      '-u',
      closedOrigin,
      '-id',
      'many-paths',
      '-retries',
      '0',
      '-max-host-error',
      '4',
    );
    expect(errors(budget.err)).toHaveLength(4);
    expect(budget.err).toContain('4 requests in a row failed');
  });
});

/** An io whose stdout is a terminal, where findings are coloured. */
function terminalIo(env: Record<string, string> = {}): CliIo & { out(): string; err(): string } {
  const io = memoryIo({ cwd: ws.dir, env });
  return { ...io, stdout: { write: (text) => io.stdout.write(text), isTTY: true } };
}

const ESC = '\u001b[';

describe('keyhole scan -nc on a terminal', () => {
  it('colours findings on a terminal, and not with -nc, -no-color or NO_COLOR', async () => {
    const argv = ['scan', '--no-store', '--templates-dir', library, '-id', 'env-file', '-silent'];
    const coloured = terminalIo();
    expect(await run([...argv, '-u', host.origin], coloured), coloured.err()).toBe(0);
    expect(coloured.out()).toContain(ESC);
    expect(coloured.out()).toContain('env-file');
    for (const [flags, env] of [
      [['-nc'], {}],
      [['-no-color'], {}],
      [[], { NO_COLOR: '1' }],
    ] as const) {
      const plain = terminalIo(env);
      expect(await run([...argv, '-u', host.origin, ...flags], plain)).toBe(0);
      expect(plain.out()).toBe(`[env-file] [http] [medium] ${host.origin}/env-file\n`);
    }
  });
});

describe('keyhole scan -sj on a library', () => {
  it('prints one JSON object a line on stderr every -si seconds and when the scan ends, counting the selection', async () => {
    const result = await scan('-u', `${host.origin}/slow`, '-id', 'path-detect,env-file', '-sj', '-si', '1');
    expect(result.code, result.err).toBe(0);
    const lines = result.err.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const objects = lines.map((line) => JSON.parse(line) as Record<string, string>);
    for (const object of objects) expect(object).toMatchObject({ templates: '2', hosts: '1', total: '3' });
    expect(objects.at(-1)).toMatchObject({ requests: '3', percent: '100', errors: '0' });
    expect(result.err.split('\n').filter((line) => line.startsWith('['))).toEqual([]);
  });
});
