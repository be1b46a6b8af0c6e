/** `keyhole scan -stats -si N -sj`: nuclei's progress lines on stderr, every N seconds and at the end. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

let host: TestHost;
let ws: Workspace;

const LINE =
  /^\[\d+:\d\d:\d\d\] \| Templates: 1 \| Hosts: 1 \| RPS: \d+ \| Matched: \d+ \| Errors: 0 \| Requests: \d+\/2 \(\d+%\)$/;

beforeAll(async () => {
  host = await startHost('127.0.0.1', (request) => ({
    body: 'ok',
    ...(request.path === '/slow' ? { delayMs: 1300 } : {}),
  }));
  ws = new Workspace();
  ws.file('slow.yaml', pathsTemplate('slow', ['{{BaseURL}}/slow', '{{BaseURL}}/fast']));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

function statsLines(err: string): string[] {
  return err.split('\n').filter((line) => /^(\[\d|\{)/.test(line));
}

describe('scan -stats', () => {
  it('prints a progress line every -si seconds and one when the scan ends', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'slow.yaml',
      '-stats',
      '-si',
      '1',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const lines = statsLines(result.err);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines.at(-1)).toContain('| Matched: 2 | Errors: 0 | Requests: 2/2 (100%)');
  });

  it("prints nuclei's JSON object with -sj, and with -stats -j", async () => {
    for (const flags of [['-sj'], ['-stats', '-j']]) {
      const result = await ws.cli(['scan', '-u', host.origin, '-t', 'slow.yaml', ...flags, '--no-store']);
      expect(result.code, result.err).toBe(0);
      const last = JSON.parse(statsLines(result.err).at(-1) ?? '');
      expect(last).toMatchObject({
        templates: '1',
        hosts: '1',
        matched: '2',
        requests: '2',
        total: '2',
        percent: '100',
      });
      expect(Object.keys(last).sort()).toEqual([
        'duration',
        'errors',
        'hosts',
        'matched',
        'percent',
        'requests',
        'rps',
        'startedAt',
        'templates',
        'total',
      ]);
    }
  });

  it('refuses -si without -stats and an interval that is not a whole number of seconds', async () => {
    const alone = await ws.cli(['scan', '-u', host.origin, '-t', 'slow.yaml', '-si', '2', '--no-store']);
    expect(alone.code).toBe(1);
    expect(alone.err).toContain('-si sets the interval of -stats: give -stats too');
    const zero = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'slow.yaml',
      '-stats',
      '-si',
      '0',
      '--no-store',
    ]);
    expect(zero.code).toBe(1);
    expect(zero.err).toContain('-si takes a whole number from 1 to 86400, got "0"');
  });
});
