/** `-bs/-bulk-size`: targets one template runs on at once, within `-c`, seen by a real HTTP server. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

const TEMPLATES = ['b1', 'b2', 'b3'];

let host: TestHost;
let ws: Workspace;
/** Requests in flight now and at most, per template (the last path segment) and all together. */
const inFlight = new Map<string, number>();
const peak = new Map<string, number>();
let total = 0;
let peakTotal = 0;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    const template = request.path.split('/').at(-1) ?? '';
    inFlight.set(template, (inFlight.get(template) ?? 0) + 1);
    peak.set(template, Math.max(peak.get(template) ?? 0, inFlight.get(template) ?? 0));
    total++;
    peakTotal = Math.max(peakTotal, total);
    try {
      await sleep(50);
      return { body: 'ok' };
    } finally {
      inFlight.set(template, (inFlight.get(template) ?? 1) - 1);
      total--;
    }
  });
  ws = new Workspace();
  for (const id of TEMPLATES) ws.file(`${id}.yaml`, pathsTemplate(id, [`{{BaseURL}}/${id}`]));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

afterEach(() => {
  host.requests.length = 0;
  peak.clear();
  peakTotal = 0;
});

const scan = (...flags: string[]) =>
  ws.cli([
    'scan',
    '--no-store',
    ...eightTargets(),
    ...TEMPLATES.flatMap((id) => ['-t', `${id}.yaml`]),
    '-rl',
    '0',
    ...flags,
  ]);

function eightTargets(): string[] {
  return Array.from({ length: 8 }, (_, i) => ['-u', `${host.origin}/t${i}`]).flat();
}

describe('keyhole scan -bs', () => {
  it('runs no template on more than -bs targets at once, and no more than -c runs in all', async () => {
    const result = await scan('-c', '10', '-bs', '2');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(24);
    expect(result.out.split('\n').filter((line) => line !== '')).toHaveLength(24);
    for (const id of TEMPLATES) expect(peak.get(id)).toBe(2);
    // Three templates with two targets each: six at once, within -c 10.
    expect(peakTotal).toBe(6);
  });

  it('keeps -c as the cap of all runs when -bs is larger', async () => {
    const result = await scan('-c', '4', '-bulk-size', '25');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(24);
    expect(peakTotal).toBe(4);
  });

  it('runs every template on one target at a time with -bs 1', async () => {
    const result = await scan('-c', '25', '--bulk-size', '1');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(24);
    for (const id of TEMPLATES) expect(peak.get(id)).toBe(1);
    expect(peakTotal).toBe(3);
  });

  it('with the defaults (-c 25, -bs 25) runs all 24 runs at once, as without -bs', async () => {
    const result = await scan();
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(24);
    expect(peakTotal).toBe(24);
    for (const id of TEMPLATES) expect(peak.get(id)).toBe(8);
  });
});

describe('keyhole scan -c above the default -bs', () => {
  it('runs one template on at most 25 targets at once unless -bs is raised too', async () => {
    const thirty = Array.from({ length: 30 }, (_, i) => ['-u', `${host.origin}/m${i}`]).flat();
    const capped = await ws.cli(['scan', '--no-store', ...thirty, '-t', 'b1.yaml', '-rl', '0', '-c', '30']);
    expect(capped.code, capped.err).toBe(0);
    expect(peak.get('b1')).toBe(25);
    peak.clear();
    const raised = await ws.cli([
      'scan',
      '--no-store',
      ...thirty,
      '-t',
      'b1.yaml',
      '-rl',
      '0',
      '-c',
      '30',
      '-bs',
      '30',
    ]);
    expect(raised.code, raised.err).toBe(0);
    expect(peak.get('b1')).toBe(30);
  });
});

describe('keyhole retest -bs', () => {
  it('retests no template on more than -bs targets at once, and no more than -c in all', async () => {
    const db = ws.path('retest.db');
    const stored = await ws.cli([
      'scan',
      ...eightTargets(),
      ...TEMPLATES.flatMap((id) => ['-t', `${id}.yaml`]),
      '-rl',
      '0',
      '--db',
      db,
    ]);
    expect(stored.code, stored.err).toBe(0);
    const scanId = /recorded +scan ([a-z0-9]{20}) in /.exec(stored.err)?.[1] ?? '';
    expect(scanId).not.toBe('');
    host.requests.length = 0;
    peak.clear();
    peakTotal = 0;
    const result = await ws.cli(['retest', '--scan', scanId, '-c', '10', '-bs', '2', '-rl', '0', '--db', db]);
    expect(result.code, result.err).toBe(0);
    expect(host.requests).toHaveLength(24);
    for (const id of TEMPLATES) expect(peak.get(id)).toBe(2);
    expect(peakTotal).toBe(6);
  });
});

describe('keyhole scan -bs errors (exit 1, before any request)', () => {
  const cases: [string, string][] = [
    ['0', 'error: -bs/-bulk-size takes a whole number from 1 to 10000, got "0"\n'],
    ['abc', 'error: -bs/-bulk-size takes a whole number from 1 to 10000, got "abc"\n'],
    ['1.5', 'error: -bs/-bulk-size takes a whole number from 1 to 10000, got "1.5"\n'],
    ['-3', 'error: -bs/-bulk-size takes a whole number from 1 to 10000, got "-3"\n'],
  ];
  for (const [value, message] of cases) {
    it(`refuses -bs ${value} naming the flag`, async () => {
      const result = await ws.cli(['scan', '--no-store', '-u', host.origin, '-t', 'b1.yaml', '-bs', value]);
      expect(result.code).toBe(1);
      expect(result.err).toBe(message);
      expect(host.requests).toHaveLength(0);
    });
  }

  it('refuses -bs with --queue: it belongs to the workers', async () => {
    const result = await ws.cli(['scan', '-u', host.origin, '-t', 'b1.yaml', '--queue', '-bs', '2']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('give -bs to keyhole worker instead');
  });
});
