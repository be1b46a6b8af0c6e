/** `keyhole scan -me DIR -se FILE -je FILE`: the findings of the scan, exported as it runs and ends. */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

let host: TestHost;
let ws: Workspace;

beforeAll(async () => {
  host = await startHost('127.0.0.1', (request) => ({ body: request.path === '/miss' ? 'no' : 'ok' }));
  ws = new Workspace();
  ws.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/a', '{{BaseURL}}/b']));
  ws.file('missed.yaml', pathsTemplate('missed', ['{{BaseURL}}/miss']));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

describe('scan exports', () => {
  it('write the findings (not the -ms non-matches) as markdown, SARIF and one JSON array', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'found.yaml',
      '-t',
      'missed.yaml',
      '-ms',
      '-me',
      'report',
      '-se',
      'out/findings.sarif',
      '-je',
      'findings.json',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const json = JSON.parse(readFileSync(ws.path('findings.json'), 'utf8'));
    expect(json.map((e: { 'matched-at': string }) => e['matched-at']).sort()).toEqual([
      `${host.origin}/a`,
      `${host.origin}/b`,
    ]);
    const sarif = JSON.parse(readFileSync(ws.path('out/findings.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['found']);
    expect(sarif.runs[0].results).toHaveLength(2);
    const files = readdirSync(ws.path('report')).sort();
    expect(files).toHaveLength(3);
    const index = readFileSync(ws.path('report/index.md'), 'utf8').split('\n');
    expect(index.slice(0, 2)).toEqual(['| Hostname/IP | Finding | Severity |', '| --- | --- | --- |']);
    expect(index.filter((line) => line.includes('| found | info |'))).toHaveLength(2);
    for (const name of files.filter((f) => f !== 'index.md')) {
      expect(index.join('\n')).toContain(`](${name})`);
      expect(readFileSync(ws.path(`report/${name}`), 'utf8')).toContain('### found (found) found on');
    }
  });

  it('write an empty array and a SARIF log without results when nothing is found', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'missed.yaml',
      '-se',
      'e.sarif',
      '-je',
      'e.json',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(readFileSync(ws.path('e.json'), 'utf8'))).toEqual([]);
    expect(JSON.parse(readFileSync(ws.path('e.sarif'), 'utf8')).runs[0].results).toEqual([]);
  });

  it('refuse a path that cannot be written before any request, naming the flag', async () => {
    ws.file('a-file', 'x');
    const before = host.requests.length;
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      'found.yaml',
      '-je',
      'a-file/x.json',
      '--no-store',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('-je');
    expect(result.err).toContain('a part of its folder path is a file');
    expect(result.err).not.toMatch(/\n\s+at /);
    expect(host.requests.length).toBe(before);
  });
});
