import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate, evaluationFailure } from '../testing/evaluate.js';
import { registerOutbound } from './outbound.js';
import { fingerprint, parseHeaderBlock } from './wappalyzer.js';
import { loadFingerprints } from './wappalyzer-data.js';
import { evaluatePattern, parsePattern } from './wappalyzer-pattern.js';

const FIXTURE = join(import.meta.dirname, '../testing/wappalyzer-fingerprints.json');
const technologies = loadFingerprints(FIXTURE);
const scratch = mkdtempSync(join(tmpdir(), 'keyhole-wappalyzer-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function detect(headers: string, body = ''): string[] {
  return fingerprint(technologies, parseHeaderBlock(headers), body);
}

/** Runs `run` with the helpers reading `environment`; gives what it returned and the warnings. */
function withEnvironment<T>(
  environment: Record<string, string>,
  run: () => T,
): { value: T; warnings: string[] } {
  const warnings: string[] = [];
  const stop = registerOutbound({
    environment,
    announce: () => {},
    warn: (message) => warnings.push(message),
  });
  try {
    return { value: run(), warnings };
  } finally {
    stop();
  }
}

describe('wappalyzer fingerprints matched against a response', () => {
  it('name a server and its version from a header pattern with a version capture', () => {
    expect(detect('Server: nginx/1.25.3\r\n')).toEqual(['Nginx:1.25.3']);
    expect(detect('Server: nginx\r\n')).toEqual(['Nginx']);
    expect(detect('Server: Apache\r\n')).toEqual([]);
  });

  it('read the header variable as nuclei gives it: status line, folded lines, repeated names', () => {
    expect(
      detect(
        'HTTP/1.1 200 OK\r\nX-Powered-By: PHP/8.2.0\r\nServer: nginx/1.25.3\r\n (Ubuntu)\r\n\r\nX-After: body',
      ),
    ).toEqual(['Nginx:1.25.3', 'PHP:8.2.0']);
    expect(parseHeaderBlock('\r\nA: 1\r\na:  2 \r\nB: x\r\n\ty\r\n\r\nC: 3')).toEqual(
      new Map([
        ['a', '1, 2'],
        ['b', 'x y'],
      ]),
    );
  });

  it('recognise a cookie by its name among the Set-Cookie headers, attributes and all', () => {
    expect(detect('Set-Cookie: theme=dark; Path=/\r\nSet-Cookie: PHPSESSID=abc123; HttpOnly\r\n')).toEqual([
      'PHP',
    ]);
    expect(detect('Set-Cookie: phpsessid_other=1\r\n')).toEqual([]);
  });

  it('take the version from the html and a meta tag, and add the technologies it implies', () => {
    const body =
      '<html><head><META name="Generator" content="WordPress 6.5.3">' +
      '<link rel="stylesheet" href="/wp-content/themes/x.css"></head></html>';
    expect(detect('', body)).toEqual(['MySQL', 'PHP', 'WordPress:6.5.3']);
    const page = '<html><body><div id="orchard-app" data-release="2.4.1"></div></body></html>';
    expect(detect('', page)).toEqual(['Orchard Board:2.4.1']);
  });

  it('keep the most specific version among the patterns that match a script source', () => {
    const body = '<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1"></script>';
    expect(detect('', body)).toEqual(['MySQL', 'PHP', 'WordPress', 'jQuery:3.7.1']);
  });

  it('add up the confidence of sightings and leave out a technology seen with none', () => {
    expect(detect('X-Orchard: yes\r\nX-Maybe-Cache: hit\r\n')).toEqual(['Orchard Board']);
    expect(detect('X-Orchard: yes\r\nSet-Cookie: orchard_session=1\r\n')).toEqual(['Orchard Board']);
  });

  it('give nothing for no headers and no body', () => {
    expect(detect('', '')).toEqual([]);
  });

  it('never fail on any body and any well-formed header values', () => {
    const header = fc.tuple(
      fc.constantFrom('Server', 'Set-Cookie', 'X-Orchard'),
      fc.string({ unit: 'binary' }),
    );
    fc.assert(
      fc.property(fc.array(header, { maxLength: 4 }), fc.string({ unit: 'binary' }), (headers, body) => {
        const values = new Map(headers.map(([name, value]) => [name.toLowerCase(), value]));
        const names = fingerprint(technologies, values, body);
        expect(names).toEqual([...names].sort());
      }),
      { numRuns: 300 },
    );
  });
});

describe('a fingerprint pattern', () => {
  it('reads its confidence and version options, and an empty regex matches anything', () => {
    const pattern = parsePattern('^thing/(\\d+)(?:\\.(\\d+))?\\;version:\\1.\\2\\;confidence:40');
    expect(pattern === undefined ? undefined : evaluatePattern(pattern, 'THING/7')).toEqual({
      confidence: 40,
      version: '7.',
    });
    const presence = parsePattern('\\;confidence:25');
    expect(presence === undefined ? undefined : evaluatePattern(presence, 'anything')).toEqual({
      confidence: 25,
      version: '',
    });
  });

  it('resolves a version of the form \\1?yes:no as wappalyzergo does', () => {
    const pattern = parsePattern('edition:( pro)?\\;version:\\1?pro:free');
    expect(pattern === undefined ? undefined : evaluatePattern(pattern, 'edition:')?.version).toBe('pro');
  });

  it('is left out when its regex is not valid RE2 syntax, as wappalyzergo leaves it', () => {
    expect(parsePattern('(unclosed')).toBeUndefined();
    expect(parsePattern('(?<=lookbehind)x')).toBeUndefined();
  });

  it('runs in linear time on a pattern that would backtrack catastrophically', () => {
    const pattern = parsePattern('^(a+)+$');
    const started = performance.now();
    expect(
      pattern === undefined ? undefined : evaluatePattern(pattern, `${'a'.repeat(50_000)}!`),
    ).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('wappalyzer(headers, body)', () => {
  it('gives the sorted technologies from the fingerprints KEYHOLE_WAPPALYZER_FINGERPRINTS names', () => {
    const { value } = withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: FIXTURE }, () =>
      evaluate('wappalyzer(header, body)', {
        header: 'HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\n\r\n',
        body: '<meta name="generator" content="WordPress 6.5.3">',
      }),
    );
    expect(value).toEqual(['MySQL', 'Nginx:1.25.3', 'PHP', 'WordPress:6.5.3']);
  });

  it('answers again from the new file when the variable names another one', () => {
    const other = join(scratch, 'other.json');
    writeFileSync(other, JSON.stringify({ apps: { 'Other Server': { headers: { server: 'nginx' } } } }));
    const scope = { header: 'Server: nginx/1.25.3\r\n', body: '' };
    const ask = (file: string) =>
      withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: file }, () =>
        evaluate('wappalyzer(header, body)', scope),
      ).value;
    expect(ask(FIXTURE)).toEqual(['Nginx:1.25.3']);
    expect(ask(other)).toEqual(['Other Server']);
    expect(ask(FIXTURE)).toEqual(['Nginx:1.25.3']);
  });

  it('fails saying how to enable it when no fingerprints are configured, and warns once', () => {
    const { value: failures, warnings } = withEnvironment({}, () => [
      evaluationFailure(() => evaluate('wappalyzer("", "")')),
      evaluationFailure(() => evaluate('wappalyzer("", "")')),
    ]);
    expect(failures[0]).toBe(
      "wappalyzer: no technology fingerprints: set KEYHOLE_WAPPALYZER_FINGERPRINTS to the path of a fingerprints_data.json (wappalyzergo's, from github.com/projectdiscovery/wappalyzergo; keyhole does not ship it)",
    );
    expect(warnings).toEqual([`${failures[0]} (what needs its value is skipped)`]);
  });

  it('names the file and the line and column of a malformed fingerprints file', () => {
    const broken = join(scratch, 'broken.json');
    writeFileSync(broken, '{\n  "apps": {\n    "X": {"html": ["a"],}\n  }\n}\n');
    const { value } = withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: broken }, () =>
      evaluationFailure(() => evaluate('wappalyzer("", "")')),
    );
    expect(value).toBe(
      `wappalyzer: KEYHOLE_WAPPALYZER_FINGERPRINTS: ${broken}:3:25: not valid JSON (property name expected)`,
    );
  });

  it('names the technology and field of a fingerprints file of the wrong shape, and a missing file', () => {
    const wrong = join(scratch, 'wrong.json');
    writeFileSync(wrong, '{"apps": {"X": {"html": "not a list"}}}');
    const missing = join(scratch, 'missing.json');
    expect(
      withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: wrong }, () =>
        evaluationFailure(() => evaluate('wappalyzer("", "")')),
      ).value,
    ).toBe(`wappalyzer: KEYHOLE_WAPPALYZER_FINGERPRINTS: ${wrong}: apps["X"].html must be a list of strings`);
    expect(
      withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: missing }, () =>
        evaluationFailure(() => evaluate('wappalyzer("", "")')),
      ).value,
    ).toBe(`wappalyzer: KEYHOLE_WAPPALYZER_FINGERPRINTS: cannot read ${missing}: no such file`);
  });

  it('refuses what nuclei refuses: a number for text, a header line that is not "Name: value"', () => {
    withEnvironment({ KEYHOLE_WAPPALYZER_FINGERPRINTS: FIXTURE }, () => {
      expect(evaluationFailure(() => evaluate('wappalyzer(42, "")'))).toBe(
        'wappalyzer: argument 1 (headers) must be a string, not a number',
      );
      const header = 'Server: x\r\nno colon here\r\n';
      expect(evaluationFailure(() => evaluate('wappalyzer(header, "")', { header }))).toBe(
        'wappalyzer: line 2 of the header block is not "Name: value"',
      );
    });
  });
});

/**
 * With wappalyzergo's own fingerprints_data.json (not shipped: set KEYHOLE_TEST_WAPPALYZER_FINGERPRINTS
 * to a copy), the answers wappalyzergo's tests expect of it.
 */
const REAL_FINGERPRINTS = process.env.KEYHOLE_TEST_WAPPALYZER_FINGERPRINTS ?? '';

describe.skipIf(REAL_FINGERPRINTS === '')("wappalyzergo's fingerprints", () => {
  let loaded: ReturnType<typeof loadFingerprints> | undefined;
  const real = () => {
    loaded ??= loadFingerprints(REAL_FINGERPRINTS);
    return loaded;
  };
  const detectReal = (headers: string, body = '') => fingerprint(real(), parseHeaderBlock(headers), body);

  it('give what wappalyzergo gives for headers and cookies', () => {
    expect(detectReal('Set-Cookie: _uetsid=ABCDEF')).toContain('Microsoft Advertising');
    expect(detectReal('Set-Cookie: path=/; jsessionid=111; path=/, jsessionid=111;')).toEqual(['Java']);
    expect(
      detectReal(
        'Set-Cookie: jsessionid=111; path=/, XSRF-TOKEN=; expires=test, path=/ laravel_session=eyJ*',
      ),
    ).toEqual(['Java', 'Laravel', 'PHP']);
    expect(detectReal('Server: now')).toContain('Vercel');
    expect(detectReal('liferay-portal: testserver 7.3.5')).toContain('Liferay:7.3.5');
  });

  it('give what wappalyzergo gives for meta tags and html, implied technologies included', () => {
    expect(
      detectReal('', '<html><head><meta name="generator" content="mura cms 1"></head></html>'),
    ).toContain('Mura CMS:1');
    expect(detectReal('', '<html data-ng-app="rbschangeapp"><head></head><body></body></html>')).toEqual(
      expect.arrayContaining(['AngularJS', 'PHP', 'Proximis Unified Commerce']),
    );
  });
});
