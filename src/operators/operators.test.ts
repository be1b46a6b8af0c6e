import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textToBytes } from '../dsl/index.js';
import { formatOperatorError } from './errors.js';
import type { Extractor, Matcher } from './model.js';
import { compileOperators } from './operators.js';
import { indexedResponseData, mergeResponseData } from './response.js';
import {
  binary,
  dslExtractor,
  dslMatcher,
  json,
  kval,
  loginPage,
  operators,
  regex,
  regexExtractor,
  response,
  size,
  status,
  word,
  xpathExtractor,
  xpathMatcher,
} from './testing/fixtures.js';

const login = response(loginPage);
const notFound = response({
  status: 404,
  headers: [['Content-Type', 'text/html']],
  body: '<h1>Not Found</h1>',
});

describe('matchers-condition', () => {
  const grafana = [status([200]), word(['Grafana']), word(['csrf_token'], { part: 'body' })];

  it('and: every matcher must match', () => {
    const and = operators({ matchers: grafana, matchersCondition: 'and' });
    expect(and.execute(login)).toMatchObject({ matched: true, hasResult: true });
    expect(and.execute(notFound)).toMatchObject({ matched: false, hasResult: false, findings: [] });
  });

  it('or: any matcher may match', () => {
    const or = operators({ matchers: [status([404]), word(['Kibana'])], matchersCondition: 'or' });
    expect(or.execute(notFound).matched).toBe(true);
    expect(or.execute(login).matched).toBe(false);
  });

  it('combines with each matcher’s own condition and negative', () => {
    const noWaf = operators({
      matchersCondition: 'and',
      matchers: [
        word(['Grafana', 'csrf_token'], { condition: 'and' }),
        word(['cloudflare', 'akamai'], { part: 'header', caseInsensitive: true, negative: true }),
        status([200, 302]),
      ],
    });
    expect(noWaf.execute(login).matched).toBe(true);
    const behindWaf = response({ ...loginPage, headers: [...loginPage.headers, ['Server', 'cloudflare']] });
    expect(noWaf.execute(behindWaf).matched).toBe(false);
  });
});

describe('named matchers', () => {
  const panels = [
    word(['Grafana'], { name: 'grafana' }),
    word(['Kibana'], { name: 'kibana' }),
    status([200], { name: 'ok' }),
  ];

  it('under or, give one finding per matcher that matched', () => {
    const result = operators({ matchers: panels }).execute(login);
    expect([...result.matches.keys()]).toEqual(['grafana', 'ok']);
    expect(result.findings).toEqual([
      { matcherName: 'grafana', extractedResults: [] },
      { matcherName: 'ok', extractedResults: [] },
    ]);
  });

  it('under and, give one finding without a matcher name', () => {
    const result = operators({ matchers: [panels[0]!, panels[2]!], matchersCondition: 'and' }).execute(login);
    expect(result.matches.size).toBe(0);
    expect(result.findings).toEqual([{ extractedResults: [] }]);
  });
});

describe('extractors', () => {
  it('put their values in extracted-results next to the matchers’ finding', () => {
    const result = operators({
      matchers: [word(['Grafana'])],
      extractors: [regexExtractor(['"version":"([0-9.]+)"'], { group: 1 }), kval(['server'])],
    }).execute(login);
    expect(result.outputExtracts).toEqual(['10.2.3', 'Apache/2.4.57 (Debian)']);
    expect(result.findings).toEqual([{ extractedResults: ['10.2.3', 'Apache/2.4.57 (Debian)'] }]);
  });

  it('without matchers, report a finding per named extractor when they extracted something', () => {
    const template = operators({
      extractors: [
        regexExtractor(['"version":"([0-9.]+)"'], { group: 1, name: 'version' }),
        kval(['x_powered_by'], { name: 'runtime' }),
        regexExtractor(['AKIA[0-9A-Z]{16}'], { name: 'aws-key' }),
      ],
    });
    const result = template.execute(login);
    expect(result).toMatchObject({ hasResult: true, matched: false, extracted: true });
    expect(result.findings).toEqual([
      { extractorName: 'version', extractedResults: ['10.2.3'] },
      { extractorName: 'runtime', extractedResults: ['PHP/8.2.7'] },
    ]);
    expect(template.execute(notFound)).toMatchObject({ hasResult: false, findings: [] });
  });

  it('report nothing when matchers exist and did not match, whatever was extracted', () => {
    const result = operators({ matchers: [word(['Kibana'])], extractors: [kval(['server'])] }).execute(login);
    expect(result.findings).toEqual([]);
    expect(result.hasResult).toBe(false);
  });

  it('make their values variables for the extractors and matchers after them', () => {
    const result = operators({
      extractors: [
        xpathExtractor(['//input[@name="csrf_token"]'], {
          attribute: 'value',
          name: 'token',
          internal: true,
        }),
        regexExtractor(['/(forgot|signup)'], { group: 1, name: 'page' }),
      ],
      matchers: [word(['value="{{token}}"']), word(['[forgot signup]'], { part: 'page' })],
      matchersCondition: 'and',
    }).execute(login);
    expect(result.matched).toBe(true);
    expect(result.variables.get('token')).toBe('a1b2c3d4e5');
    expect(result.variables.get('page')).toEqual(['forgot', 'signup']);
  });
});

describe('internal extractors', () => {
  const csrf = xpathExtractor(['//input[@type="hidden"]'], {
    attribute: 'value',
    name: 'csrf',
    internal: true,
  });

  it('feed dynamic values to later requests and stay out of extracted-results', () => {
    const result = operators({ extractors: [csrf] }).execute(login);
    expect(result.dynamicValues).toEqual(new Map([['csrf', ['a1b2c3d4e5']]]));
    expect(result.outputExtracts).toEqual([]);
    expect(result).toMatchObject({ hasResult: true, findings: [] });
  });

  it('give name0, name1, … and the list when they extract several values', () => {
    const links = regexExtractor(['href=["\']/([a-z]+)'], { group: 1, name: 'link', internal: true });
    const result = operators({
      extractors: [links],
      matchers: [word(['{{link0}} {{link1}}'], { part: 'x' })],
    }).execute(response({ ...loginPage, variables: [['x', 'forgot signup']] }));
    expect(result.variables.get('link')).toEqual(['forgot', 'signup']);
    expect(result.matched).toBe(true);
  });

  it('are kept even when an and-matcher fails, but then give no finding', () => {
    const result = operators({
      extractors: [csrf],
      matchers: [status([302]), word(['Grafana'])],
      matchersCondition: 'and',
    }).execute(login);
    expect(result).toMatchObject({ hasResult: true, matched: false, findings: [] });
    expect(result.dynamicValues.get('csrf')).toEqual(['a1b2c3d4e5']);
  });

  it('do not hide the finding of matchers that matched', () => {
    const result = operators({ extractors: [csrf, kval(['server'])], matchers: [status([200])] }).execute(
      login,
    );
    expect(result.findings).toEqual([{ extractedResults: ['Apache/2.4.57 (Debian)'] }]);
  });
});

describe('internal matchers', () => {
  it('gate the result but give no finding and no matcher name', () => {
    const gate = operators({ matchers: [status([200], { internal: true, name: 'up' })] });
    expect(gate.execute(login)).toMatchObject({ matched: true, hasResult: true, findings: [] });
    expect(gate.execute(login).matches.size).toBe(0);
    expect(gate.execute(notFound).matched).toBe(false);
  });
});

describe('request history', () => {
  it('lets matchers read earlier responses by their indexed names', () => {
    const first = indexedResponseData(login, 1);
    const second = notFound;
    const data = mergeResponseData(first, second, indexedResponseData(second, 2));
    const template = operators({
      matchersCondition: 'and',
      matchers: [
        word(['Grafana'], { part: 'body_1' }),
        word(['Not Found'], { part: 'body_2' }),
        binary(['3c6831'], { part: 'body_2' }),
      ],
    });
    expect(template.execute(data).matched).toBe(true);
    expect(data.variables.get('status_code_1')).toBe(200);
    expect(data.variables.get('status_code')).toBe(404);
  });
});

describe('compileOperators', () => {
  it('reports every fault of every matcher and extractor', () => {
    const matchers: Matcher[] = [word(['ok']), regex(['(']), binary(['zz'])];
    const extractors: Extractor[] = [json(['.a | nope']), regexExtractor(['x'], { caseInsensitive: true })];
    const errors = compileOperators({ matchers, extractors, matchersCondition: 'or' });
    expect(Array.isArray(errors) ? errors.map(formatOperatorError) : errors).toEqual([
      'matchers[1].regex[0]: invalid regular expression "(": missing closing ): `(`',
      'matchers[2].binary[0]: "zz" is not hexadecimal',
      'extractors[0].json[0]: invalid jq query ".a | nope": nope/0 is not defined',
      'extractors[1].case-insensitive: is supported only by kval extractors, not by regex extractors',
    ]);
  });
});

describe('execute on arbitrary bodies', () => {
  const everything = operators({
    matchersCondition: 'and',
    matchers: [
      word(['a', 'é'], { caseInsensitive: true }),
      word(['00ff'], { encoding: 'hex' }),
      regex(['(?i)[[:alpha:]]+\\z', '(a|b)*']),
      binary(['ff']),
      size([1, 2, 3]),
      xpathMatcher(['//a', '/html/body']),
    ],
    extractors: [
      regexExtractor(['(.)(.)?'], { group: 2 }),
      json(['.[]?', '..|numbers']),
      xpathExtractor(['//*'], { attribute: 'href' }),
      kval(['content_type', 'body']),
    ],
  });

  it('never throws and always returns text values', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 512 }),
          fc.string({ maxLength: 256 }).map((text) => Buffer.from(text)),
          fc.json().map((text) => Buffer.from(text)),
          fc
            .array(
              fc.constantFrom(
                '<a href=x>',
                '<?xml version="1.0"?>',
                '<p>',
                '</a>',
                'é',
                '\u0000',
                '{"a":1}',
                '<![CDATA[',
              ),
            )
            .map((parts) => Buffer.from(parts.join(''))),
        ),
        (body) => {
          const result = everything.execute(
            response({ headers: [['Content-Type', 'application/octet-stream']], body }),
          );
          for (const value of result.outputExtracts) expect(typeof value).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('binary responses', () => {
  const dump = response({
    headers: [['Content-Type', 'application/octet-stream']],
    body: Buffer.concat([
      Buffer.from('JAVA PROFILE 1.0.2\u0000'),
      Uint8Array.from([0xff, 0xfe]),
      Buffer.from('key=s3cr3t\u0000'),
    ]),
  });

  it('match bytes and report extracted values as printable text', () => {
    const result = operators({
      matchersCondition: 'and',
      matchers: [binary(['4a4156412050524f46494c45']), word(['fffe'], { encoding: 'hex' }), size([32])],
      extractors: [regexExtractor(['1\\.0\\.2.{3}'])],
    }).execute(dump);
    expect(result.matched).toBe(true);
    expect(result.outputExtracts).toEqual(['1.0.2\u0000\uFFFD\uFFFD']);
  });

  it('keep the exact bytes in dynamic values for the requests that follow', () => {
    const result = operators({
      extractors: [regexExtractor(['\\x00(.{2})key'], { group: 1, name: 'raw', internal: true })],
    }).execute(dump);
    const value = result.dynamicValues.get('raw')?.[0] ?? '';
    expect([...textToBytes(value)]).toEqual([0xff, 0xfe]);
  });
});

describe('compileOperators on arbitrary input', () => {
  it('returns errors rather than throwing, whatever the expressions', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('(', '[', '.a[', '//a[', '\\', '{{x}}', ')', '"', 'len(body) > 1', '{{md5(body)}}'),
    );
    fc.assert(
      fc.property(text, text, text, (source, query, expression) => {
        const compiled = compileOperators({
          matchers: [regex([source]), xpathMatcher([expression]), binary([source])],
          extractors: [json([query]), xpathExtractor([expression]), regexExtractor([source])],
          matchersCondition: 'or',
        });
        if (!Array.isArray(compiled)) compiled.execute(login);
      }),
      { numRuns: 200 },
    );
    expect(process.exitCode).toBeUndefined();
  });

  it('compiles or rejects any dsl expression and word, and evaluates what compiles without throwing', () => {
    const pieces = fc.constantFrom(
      'status_code',
      'body',
      '==',
      '200',
      '&&',
      '||',
      '(',
      ')',
      '"',
      "'",
      ',',
      'contains(',
      'len(',
      'regex(',
      '{{',
      '}}',
      'x',
      '7*7',
      '!',
      '?',
      ':',
      '[',
      ']',
      'compare_versions(',
      '"<= 1.0"',
      'base64(',
      'in',
    );
    const expression = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(expression, (source) => {
        for (const parts of [
          { matchers: [dslMatcher([source])], extractors: [] },
          { matchers: [word([source, `{{${source}}}`])], extractors: [] },
          { matchers: [], extractors: [dslExtractor([source])] },
        ]) {
          const compiled = compileOperators({ ...parts, matchersCondition: 'or' });
          if (Array.isArray(compiled)) expect(compiled.length).toBeGreaterThan(0);
          else compiled.execute(login);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the variables operators read', () => {
  it('lists parts, the status, expression variables and placeholders of words', () => {
    const compiled = operators({
      matchers: [
        status([200]),
        word(['admin', '{{username}}'], { part: 'header' }),
        regex(['x'], { part: 'all' }),
        dslMatcher(['contains(body_2, token) && status_code_1 == 302', 'wp-version == "1"']),
      ],
      extractors: [
        regexExtractor(['v([0-9]+)'], { part: 'location' }),
        kval(['X-Token']),
        dslExtractor(['to_lower(server)']),
      ],
    });
    expect(compiled.names).toEqual(
      new Set([
        'status_code',
        'all_headers',
        'username',
        'all',
        'body',
        'body_2',
        'token',
        'status_code_1',
        'wp',
        'version',
        'location',
        'x-token',
        'x_token',
        'server',
      ]),
    );
  });

  it('reads every variable when a key-value extractor ignores case', () => {
    expect(operators({ extractors: [kval(['server'], { caseInsensitive: true })] }).names).toBe('any');
  });
});

describe('findingsOnly: matchers before extractors', () => {
  const server = regexExtractor(['Apache/[0-9.]+'], { part: 'header', name: 'server' });
  const shapes = {
    'and, extractor unread': { matchers: [status([200]), word(['csrf_token'])], extractors: [server] },
    'and, a dsl matcher reads the extractor': {
      matchers: [status([200]), dslMatcher(['contains(server, "Apache")'])],
      extractors: [server],
    },
    'and, internal extractor': {
      matchers: [status([200]), word(['csrf_token'])],
      extractors: [{ ...server, internal: true }],
    },
    'or, extractor unread': { matchers: [status([200]), word(['csrf_token'])], extractors: [server] },
  } as const;

  it('finds exactly what extractors-first finds, on matching and failing responses', () => {
    for (const [name, parts] of Object.entries(shapes)) {
      const condition = name.startsWith('or') ? 'or' : 'and';
      const compiled = operators({
        ...parts,
        matchers: [...parts.matchers],
        extractors: [...parts.extractors],
        matchersCondition: condition,
      });
      for (const data of [login, notFound]) {
        const full = compiled.execute(data);
        const lean = compiled.execute(data, { findingsOnly: true });
        expect({ ...lean, variables: undefined }, name).toMatchObject({
          hasResult: full.hasResult,
          matched: full.matched,
          findings: full.findings,
          dynamicValues: full.dynamicValues,
        });
      }
    }
  });

  it('skips the extractors of a response whose matchers failed, when nothing reads them', () => {
    const compiled = operators({ ...shapes['and, extractor unread'], matchersCondition: 'and' });
    const failing = response({ ...loginPage, body: 'no token here' });
    expect(compiled.execute(failing).extracts.get('server')).toEqual(['Apache/2.4.57']);
    expect(compiled.execute(failing, { findingsOnly: true }).extracts.size).toBe(0);
    expect(compiled.execute(login, { findingsOnly: true }).findings).toEqual([
      { extractorName: 'server', extractedResults: ['Apache/2.4.57'] },
    ]);
    const read = operators({ ...shapes['and, a dsl matcher reads the extractor'], matchersCondition: 'and' });
    expect(read.execute(login, { findingsOnly: true }).matched).toBe(true);
  });
});
