import { describe, expect, it } from 'vitest';
import { coverage } from './coverage.js';
import type { SecretSet } from './model.js';
import { loadText } from './testing/fixtures.js';

async function secretsOf(text: string): Promise<SecretSet> {
  const loaded = await loadText(text);
  expect(loaded.messages).toEqual([]);
  if (loaded.secrets === undefined) throw new Error('invalid');
  return loaded.secrets;
}

const bearer = (scope: string) => `  - type: bearertoken
    ${scope}
    token: t0k3n-value
`;

describe('which entries apply to which targets', () => {
  it('finds the first target of each entry, and the targets no entry applies to', async () => {
    const set = await secretsOf(`static:
${bearer('domains: [app.test]')}${bearer("domains-regex: ['.*\\.api\\.test']")}`);
    const found = coverage(set, [
      'https://www.test',
      'https://app.test/x',
      'v1.api.test',
      'https://app.test/y',
    ]);
    expect([...found.firstTarget].map(([entry, t]) => [entry.label, t.target])).toEqual([
      ['static[0] of s.yaml', 'https://app.test/x'],
      ['static[1] of s.yaml', 'v1.api.test'],
    ]);
    expect(found.uncovered).toEqual(['https://www.test']);
    expect(found.unmatched).toEqual([]);
  });

  it('says when a domain was written without the port of a target', async () => {
    const set = await secretsOf(`static:\n${bearer('domains: [app.test]')}`);
    const found = coverage(set, ['https://app.test:8443/']);
    expect(found.unmatched.map((u) => [u.entry.label, u.cause])).toEqual([
      [
        'static[0] of s.yaml',
        'app.test is written without the port of the target https://app.test:8443/; write "app.test:8443"',
      ],
    ]);
  });

  it('says when a pattern misses a target only because of its port', async () => {
    const set = await secretsOf(`static:\n${bearer("domains-regex: ['app\\.test']")}`);
    const found = coverage(set, ['http://app.test:8080']);
    expect(found.unmatched[0]?.cause).toMatch(/matched against host:port .*\(app\.test:8080\)/);
  });

  it('says when an earlier entry takes every target of a later one', async () => {
    const set = await secretsOf(`static:
${bearer("domains-regex: ['.*']")}${bearer('domains: [app.test]')}`);
    const found = coverage(set, ['https://app.test']);
    // Domains win over patterns whatever their order: the pattern entry is the one left without targets.
    expect(found.unmatched.map((u) => [u.entry.label, u.cause])).toEqual([
      [
        'static[0] of s.yaml',
        'static[1] of s.yaml comes first for https://app.test (a request gets the first entry that matches it)',
      ],
    ]);
  });

  it('says when the targets name the loopback host otherwise', async () => {
    const set = await secretsOf(`static:\n${bearer('domains: ["localhost:8080"]')}`);
    const found = coverage(set, ['http://127.0.0.1:8080']);
    expect(found.unmatched[0]?.cause).toBe(
      'the targets name the loopback host 127.0.0.1, and localhost is another host name; add "127.0.0.1:8080"',
    );
  });

  it('does not blame the loopback name of an entry for another port of the same host', async () => {
    const set = await secretsOf(`static:\n${bearer('domains: ["127.0.0.1:8081", "localhost:8081"]')}`);
    expect(coverage(set, ['http://127.0.0.1:8080']).unmatched.map((u) => u.cause)).toEqual([undefined]);
  });

  it('gives no cause when nothing suggests one', async () => {
    const set = await secretsOf(`static:\n${bearer('domains: ["other.test"]')}`);
    expect(coverage(set, ['https://app.test']).unmatched.map((u) => u.cause)).toEqual([undefined]);
  });
});
