import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSource } from '../source/index.js';
import { decodeSecretFile } from './decode.js';

const SEEDS = [
  'static:\n  - type: basicauth\n    domains: [a.test]\n    username: u\n    password: p\n',
  'static:\n  - type: cookie\n    domains-regex: [".*"]\n    cookies:\n      - raw: "a=b=c"\n      - {key: k, value: v}\n',
  'dynamic:\n  - template: login.yaml\n    variables:\n      - {key: username, value: $USER}\n    reauth: {status: [401], every: 15m, max: 2}\n    secrets:\n      - type: header\n        domains: ["a.test:8443"]\n        headers: [{key: X, value: "{{session}}"}]\n',
  '{"static": [{"type": "query", "domains": ["a.test"], "params": [{"key": "k", "value": {"env": "K"}}]}]}',
  'static:\n  - type: bearertoken\n    domains: ["[::1]:8080"]\n    token: {cmd: [op, read, "op://x/y"]}\n',
  'static:\n  - type: cookie\n    domains-regex: ["(.*\\\\.)?a\\\\.test"]\n    cookies: [{key: s, value: v}]\n    verify: {url: "https://b.a.test/me?x=1", status: [200, 204], regex: "Sign out", every: 5m}\n',
  '{"dynamic": [{"template": "l.yaml", "verify": {"url": "http://[::1]:8080/me"}, "type": "bearertoken", "domains": ["[::1]:8080"], "token": "{{t}}"}]}',
];

/**
 * The time to parse and check one input. A slow first run is measured twice more and the fastest
 * kept: a garbage-collection pause or a busy machine slows one run, a parser flaw slows every run.
 */
function check(text: string, format: 'yaml' | 'json'): number {
  let fastest = checkOnce(text, format);
  for (let retry = 0; retry < 2 && fastest >= 20; retry++)
    fastest = Math.min(fastest, checkOnce(text, format));
  return fastest;
}

/** Runs the parser and decoder; everything it reports must carry a position. */
function checkOnce(text: string, format: 'yaml' | 'json'): number {
  const started = performance.now();
  const parsed = parseSource(format === 'json' ? 's.json' : 's.yaml', text, format);
  decodeSecretFile(parsed);
  const elapsed = performance.now() - started;
  for (const d of parsed.diagnostics.items) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.col).toBeGreaterThanOrEqual(1);
    expect(d.message.length).toBeGreaterThan(0);
  }
  return elapsed;
}

const mutation = fc.record({
  seed: fc.constantFrom(...SEEDS),
  edits: fc.array(
    fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 6 }),
      insert: fc.oneof(
        fc.string({ maxLength: 6 }),
        fc.constantFrom(
          ':',
          '-',
          '[',
          ']',
          '{',
          '}',
          '"',
          "'",
          '\n',
          '  ',
          '&a',
          '*a',
          '!!str',
          '~',
          'null',
          '#',
          '\t',
        ),
      ),
    }),
    { maxLength: 6 },
  ),
});

function mutate(seed: string, edits: readonly { at: number; remove: number; insert: string }[]): string {
  let text = seed;
  for (const e of edits) {
    const at = e.at % (text.length + 1);
    text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
  }
  return text;
}

describe('secret file parser fuzzing', () => {
  // Generous on a shared machine; a real parser bug (exponential work) would blow far past it.
  const LIMIT_MS = 50;

  // Compile the code paths once so that the first measured input does not pay for it.
  beforeAll(() => {
    for (const seed of SEEDS) check(seed, seed.startsWith('{') ? 'json' : 'yaml');
  });

  it('starts from valid files', () => {
    for (const seed of SEEDS) {
      const parsed = parseSource(
        seed.startsWith('{') ? 's.json' : 's.yaml',
        seed,
        seed.startsWith('{') ? 'json' : 'yaml',
      );
      decodeSecretFile(parsed);
      expect(parsed.diagnostics.items.filter((d) => d.severity === 'error')).toEqual([]);
    }
  });

  it('random text never throws and every problem has a position', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.constantFrom('yaml' as const, 'json' as const),
        (text, format) => {
          expect(check(text, format)).toBeLessThan(LIMIT_MS);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('mutated valid files never throw and every problem has a position', () => {
    fc.assert(
      fc.property(mutation, ({ seed, edits }) => {
        const text = mutate(seed, edits);
        const format = seed.startsWith('{') ? 'json' : 'yaml';
        expect(check(text, format)).toBeLessThan(LIMIT_MS);
      }),
      { numRuns: 1500 },
    );
  });

  it('random YAML-shaped documents never throw', () => {
    const scalar = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer().map(String),
      fc.constant(''),
      fc.constant(null),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('node'), { maxLength: 3 }), tie('map')),
      map: fc.dictionary(
        fc.constantFrom(
          'static',
          'dynamic',
          'type',
          'domains',
          'domains-regex',
          'token',
          'cookies',
          'raw',
          'key',
          'value',
          'env',
          'cmd',
          'template',
          'secrets',
          'reauth',
          'status',
          'verify',
          'url',
          'regex',
          'every',
        ),
        tie('node'),
        { maxKeys: 4 },
      ),
    }));
    fc.assert(
      fc.property(value.map, (doc) => {
        expect(check(JSON.stringify(doc), 'json')).toBeLessThan(LIMIT_MS);
      }),
      { numRuns: 500 },
    );
  });
});
