import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Extractor, Matcher } from './model.js';
import { compileOperators } from './operators.js';
import { indexedResponseData, mergeResponseData, type ResponseData } from './response.js';
import {
  dslExtractor,
  dslMatcher,
  loginPage,
  operators,
  regexExtractor,
  response,
  word,
} from './testing/fixtures.js';

const login = response(loginPage);

const wordpressReadme = response({
  status: 200,
  headers: [
    ['Server', 'nginx'],
    ['Content-Type', 'text/plain; charset=utf-8'],
    ['Last-Modified', 'Tue, 05 Mar 2024 10:00:00 GMT'],
  ],
  body: [
    '=== Akismet Anti-spam: Spam Protection ===',
    'Contributors: matt, ryan, andy, mdawaffe, tellyworth, josephscott, lessbloat, eoigal',
    'Tags: comments, spam, antispam, anti-spam, contact form',
    'Requires at least: 5.8',
    'Tested up to: 6.5',
    'Stable tag: 5.3.1',
    'License: GPLv2 or later',
    '',
  ].join('\n'),
});

const jsonApi = response({
  status: 401,
  headers: [
    ['Content-Type', 'application/json'],
    ['WWW-Authenticate', 'Bearer realm="api"'],
  ],
  body: '{"error":"unauthorized","message":"token required"}',
});

function matches(matcher: Matcher, data: ResponseData = login): boolean {
  return operators({ matchers: [matcher] }).execute(data).matched;
}

function extract(extractor: Extractor, data: ResponseData = login): readonly string[] {
  return operators({ extractors: [extractor] }).execute(data).outputExtracts;
}

function compileErrors(parts: { matchers?: Matcher[]; extractors?: Extractor[] }) {
  const compiled = compileOperators({ matchers: [], extractors: [], matchersCondition: 'or', ...parts });
  return Array.isArray(compiled) ? compiled : [];
}

describe('dsl matchers on a response', () => {
  it('combine the status, the body and a header variable', () => {
    const grafana = dslMatcher([
      'status_code == 200 && contains(body, "grafanaBootData") && contains(content_type, "text/html")',
    ]);
    expect(matches(grafana)).toBe(true);
    expect(matches(grafana, jsonApi)).toBe(false);
    expect(matches(dslMatcher(['contains(tolower(server), "apache")', 'x_powered_by == "PHP/8.2.7"']))).toBe(
      true,
    );
  });

  it('read a header by its name lower-cased with "-" as "_", and the whole header dump', () => {
    expect(matches(dslMatcher(['contains(www_authenticate, "Bearer")']), jsonApi)).toBe(true);
    expect(matches(dslMatcher(['contains(header, "WWW-Authenticate: Bearer")']), jsonApi)).toBe(true);
    expect(matches(dslMatcher(['contains(all_headers, "application/json")']), jsonApi)).toBe(true);
  });

  it('use contains_all, regex and len over the body', () => {
    expect(
      matches(
        dslMatcher(['contains_all(body, "Stable tag:", "Akismet", "Requires at least")']),
        wordpressReadme,
      ),
    ).toBe(true);
    expect(matches(dslMatcher(['contains_all(body, "Stable tag:", "Jetpack")']), wordpressReadme)).toBe(
      false,
    );
    expect(matches(dslMatcher(['regex("(?i)stable tag: [0-9.]+", body)']), wordpressReadme)).toBe(true);
    expect(matches(dslMatcher(['len(body) > 100 && len(body) < 1000']), wordpressReadme)).toBe(true);
    expect(matches(dslMatcher(['len(body) == 0']), wordpressReadme)).toBe(false);
  });

  it('compare a version extracted from the response', () => {
    const vulnerable = (constraint: string) =>
      operators({
        extractors: [
          regexExtractor(['(?m)^Stable tag: ([0-9.]+)'], { group: 1, name: 'version', internal: true }),
        ],
        matchers: [dslMatcher([`compare_versions(version, '${constraint}')`])],
      }).execute(wordpressReadme).matched;
    expect(vulnerable('< 5.3.2')).toBe(true);
    expect(vulnerable('<= 5.3.0')).toBe(false);
    expect(vulnerable('>= 5.0, < 6.0')).toBe(true);
  });

  it('see the response time in seconds as duration', () => {
    expect(matches(dslMatcher(['duration > 0.1 && duration < 0.2']))).toBe(true);
    expect(matches(dslMatcher(['duration >= 5']))).toBe(false);
  });

  it('read earlier responses of the template by their indexed names', () => {
    const history = mergeResponseData(
      indexedResponseData(login, 1),
      jsonApi,
      indexedResponseData(jsonApi, 2),
    );
    const chain = dslMatcher(
      [
        'status_code_1 == 200 && contains(body_1, "csrf_token")',
        'status_code_2 == 401 && contains(body_2, "token required")',
        'status_code == 401',
      ],
      { condition: 'and' },
    );
    expect(matches(chain, history)).toBe(true);
    expect(matches(dslMatcher(['status_code_3 == 200']), history)).toBe(false);
  });

  it('resolve a {{variable}} marker inside a string before evaluating', () => {
    const data = response({
      ...loginPage,
      variables: [
        ['product', 'Grafana'],
        ['csrf', 'a1b2c3d4e5'],
      ],
    });
    expect(matches(dslMatcher(['contains(body, "Sign in · {{product}}")']), data)).toBe(true);
    expect(matches(dslMatcher(['contains(body, \'value="{{csrf}}"\')']), data)).toBe(true);
    expect(matches(dslMatcher(['contains(body, "{{missing}}")']), data)).toBe(false);
  });

  it('need every expression under condition and, one under or', () => {
    const both = ['status_code == 200', 'contains(body, "Kibana")'];
    expect(matches(dslMatcher(both, { condition: 'and' }))).toBe(false);
    expect(matches(dslMatcher(both, { condition: 'or' }))).toBe(true);
    expect(
      matches(dslMatcher(['status_code == 200', 'contains(body, "Grafana")'], { condition: 'and' })),
    ).toBe(true);
  });

  it('count an expression that fails to evaluate as false under and, and skip it under or', () => {
    const failing = 'base64_decode(body) == "x"';
    const unknown = 'no_such_variable == 1';
    expect(matches(dslMatcher([failing, 'status_code == 200'], { condition: 'and' }))).toBe(false);
    expect(matches(dslMatcher([unknown, 'status_code == 200'], { condition: 'and' }))).toBe(false);
    expect(matches(dslMatcher([failing, 'status_code == 200'], { condition: 'or' }))).toBe(true);
    expect(matches(dslMatcher([unknown, 'status_code == 200'], { condition: 'or' }))).toBe(true);
    expect(matches(dslMatcher([unknown]))).toBe(false);
  });

  it('skip an expression whose value is not a boolean, under either condition', () => {
    expect(matches(dslMatcher(['len(body)', 'status_code == 200'], { condition: 'and' }))).toBe(true);
    expect(matches(dslMatcher(['status_code == 200', 'len(body)'], { condition: 'and' }))).toBe(false);
    expect(matches(dslMatcher(['to_upper(server)', 'status_code == 200']))).toBe(true);
    expect(matches(dslMatcher(['to_upper(server)']))).toBe(false);
  });

  it('invert the result when negative, failed evaluations included', () => {
    expect(matches(dslMatcher(['contains(body, "Kibana")'], { negative: true }))).toBe(true);
    expect(matches(dslMatcher(['contains(body, "Grafana")'], { negative: true }))).toBe(false);
    expect(matches(dslMatcher(['no_such_variable == 1'], { negative: true }))).toBe(true);
  });

  it('gate the result without a finding of their own when internal', () => {
    const template = operators({
      matchersCondition: 'and',
      matchers: [
        dslMatcher(['status_code == 200'], { internal: true, name: 'up' }),
        dslMatcher(['contains(body, "Grafana")'], { name: 'grafana' }),
      ],
    });
    expect(template.execute(login)).toMatchObject({ matched: true });
    expect(template.execute(login).findings).toEqual([{ extractedResults: [] }]);
    expect(template.execute(jsonApi).matched).toBe(false);
  });

  it('give one finding per named matcher that matched under matchers-condition or', () => {
    const result = operators({
      matchers: [
        dslMatcher(['contains(body, "Grafana")'], { name: 'grafana' }),
        dslMatcher(['contains(body, "Kibana")'], { name: 'kibana' }),
        dslMatcher(['status_code == 200'], { name: 'up' }),
      ],
    }).execute(login);
    expect(result.findings.map((f) => f.matcherName)).toEqual(['grafana', 'up']);
  });
});

describe('dsl extractors', () => {
  it('extract the text of each value, numbers without exponent', () => {
    const body = '{"error":"unauthorized","message":"token required"}';
    expect(
      extract(dslExtractor(['status_code', 'content_type', 'md5(body)', 'len(body) * 1000000']), jsonApi),
    ).toEqual(['401', 'application/json', createHash('md5').update(body).digest('hex'), '51000000']);
  });

  it('extract each distinct value once, empty values and nulls left out', () => {
    expect(
      extract(
        dslExtractor(['status_code', '"401"', 'status_code == 200 ? "ok"', '""', 'to_lower("")']),
        jsonApi,
      ),
    ).toEqual(['401']);
  });

  it('skip an expression that reads a variable the response lacks, and stop at any other error', () => {
    expect(extract(dslExtractor(['no_such_variable', 'status_code']), jsonApi)).toEqual(['401']);
    expect(extract(dslExtractor(['status_code', 'base64_decode(body)', 'content_type']), jsonApi)).toEqual([
      '401',
    ]);
  });

  it('give values to later matchers and requests when internal', () => {
    const result = operators({
      extractors: [dslExtractor(['to_lower(x_powered_by)'], { name: 'runtime', internal: true })],
      matchers: [dslMatcher(['runtime == "php/8.2.7"'])],
    }).execute(login);
    expect(result.matched).toBe(true);
    expect(result.dynamicValues.get('runtime')).toEqual(['php/8.2.7']);
    expect(result.outputExtracts).toEqual([]);
  });
});

describe('word matchers with expressions', () => {
  it('render {{…}} expressions with the variables before matching', () => {
    const data = response({ ...loginPage, variables: [['product', 'grafana']] });
    expect(matches(word(['Sign in · {{replace(product, "g", "G")}}']), data)).toBe(true);
    expect(matches(word(['{{base64_decode("Y3NyZl90b2tlbg==")}}']), data)).toBe(true);
    expect(matches(word(['Sign in · {{to_upper(product)}}'], { caseInsensitive: true }), data)).toBe(true);
  });

  it('leave text that only looks like a placeholder as written', () => {
    const ssti = response({ body: 'Hello {{7*7}} and {{constructor.constructor("x")()}}' });
    expect(matches(word(['{{7*7}}']), ssti)).toBe(true);
    expect(matches(word(['{{constructor.constructor("x")()}}']), ssti)).toBe(true);
    expect(matches(word(['49']), ssti)).toBe(false);
  });
});

describe('compiling expressions', () => {
  it('names an unknown helper, suggests the closest and gives its offset', () => {
    expect(
      compileErrors({ matchers: [dslMatcher(['status_code == 200', 'contains(tolwer(body), "x")'])] }),
    ).toEqual([
      {
        operator: 'matcher',
        index: 0,
        field: 'dsl',
        valueIndex: 1,
        offset: 9,
        message: 'unknown function "tolwer" (did you mean "to_lower"?)',
      },
    ]);
    expect(compileErrors({ extractors: [dslExtractor(['frobnicate(body)'])] })[0]).toMatchObject({
      operator: 'extractor',
      field: 'dsl',
      valueIndex: 0,
      offset: 0,
      message: expect.stringMatching(/^unknown function "frobnicate"; it is not one of the helper functions/),
    });
  });

  it('rejects a syntax error, a wrong argument count and a bad literal regex', () => {
    const errors = compileErrors({
      matchers: [dslMatcher(['contains(body, "a"', 'len(body, 2) > 1', 'regex("(", body)'])],
    });
    expect(errors.map((e) => [e.valueIndex, e.offset, e.message])).toEqual([
      [0, 18, 'expected "," or ")" but found end of expression'],
      [1, 0, 'len() takes 1 argument, not 2'],
      [2, 6, expect.stringMatching(/^regex\(\): invalid regular expression "\("/)],
    ]);
  });

  it('compile a wappalyzer() call, whose fingerprints are read only when it runs', () => {
    expect(
      compileErrors({ matchers: [dslMatcher(['contains(wappalyzer(header, body), "Nginx")'])] }),
    ).toEqual([]);
  });

  it('explains that a {{placeholder}} in an expression belongs inside a string', () => {
    expect(compileErrors({ matchers: [dslMatcher(['status_code == {{code}}'])] })[0]?.message).toMatch(
      /a \{\{…\}\} placeholder in an expression goes inside a string/,
    );
  });

  it('reports a near-miss helper inside a word at its offset', () => {
    expect(compileErrors({ matchers: [word(['ok', 'token={{base46(token)}}'])] })).toEqual([
      {
        operator: 'matcher',
        index: 0,
        field: 'words',
        valueIndex: 1,
        offset: 8,
        message: 'unknown function "base46" (did you mean "base64"?)',
      },
    ]);
  });
});
