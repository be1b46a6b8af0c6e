import { describe, expect, it } from 'vitest';
import type { Extractor } from './model.js';
import { compileOperators } from './operators.js';
import {
  json,
  kval,
  loginPage,
  operators,
  regexExtractor,
  response,
  xpathExtractor,
} from './testing/fixtures.js';

const login = response(loginPage);

function extract(extractor: Extractor, data = login): readonly string[] {
  return operators({ extractors: [extractor] }).execute(data).outputExtracts;
}

function compileErrors(extractor: Extractor) {
  const compiled = compileOperators({ matchers: [], extractors: [extractor], matchersCondition: 'or' });
  return Array.isArray(compiled) ? compiled : [];
}

describe('regex extractors', () => {
  it('extract the whole match, or the group asked for', () => {
    expect(extract(regexExtractor(['"version":"[0-9.]+"']))).toEqual(['"version":"10.2.3"']);
    expect(extract(regexExtractor(['"version":"([0-9.]+)"'], { group: 1 }))).toEqual(['10.2.3']);
    expect(
      extract(regexExtractor(['name="csrf_token" value="(?P<token>[[:alnum:]]+)"'], { group: 1 })),
    ).toEqual(['a1b2c3d4e5']);
  });

  it('extract every match of every regex once, in order', () => {
    const links = regexExtractor(['href=["\']([^"\']+)', 'action="([^"]+)"', 'href="(/forgot)'], {
      group: 1,
    });
    expect(extract(links)).toEqual(['/forgot', '/signup', '/login']);
  });

  it('skip an empty match right after a match, as Go does', () => {
    expect(extract(regexExtractor(['a*']), response({ body: 'baaac' }))).toEqual(['', 'aaa']);
  });

  it('extract nothing for a group the regex does not have, and "" for one that did not take part', () => {
    expect(extract(regexExtractor(['(Grafana)'], { group: 2 }))).toEqual([]);
    expect(extract(regexExtractor(['(Kibana)|(Grafana)'], { group: 1 }))).toEqual(['']);
  });

  it('read the header dump and single headers', () => {
    expect(extract(regexExtractor(['PHPSESSID=([a-f0-9]+)'], { part: 'header', group: 1 }))).toEqual([
      '9b1f0c2a7d',
    ]);
    expect(extract(regexExtractor(['[0-9.]+'], { part: 'server' }))).toEqual(['2.4.57']);
  });

  it('are rejected for a bad regex or a negative group', () => {
    expect(compileErrors(regexExtractor(['ok', '(unclosed'], { group: -1 }))).toEqual([
      expect.objectContaining({ operator: 'extractor', index: 0, field: 'group' }),
      expect.objectContaining({ field: 'regex', valueIndex: 1 }),
    ]);
  });
});

describe('kval extractors', () => {
  it('read headers by name with - as _ and cookies by name', () => {
    expect(extract(kval(['x_powered_by']))).toEqual(['PHP/8.2.7']);
    expect(extract(kval(['X-Powered-By']))).toEqual(['PHP/8.2.7']);
    expect(extract(kval(['phpsessid', 'csrftoken']))).toEqual(['9b1f0c2a7d', 'tok-42']);
    expect(extract(kval(['Server', 'content_length', 'missing']))).toEqual(['Apache/2.4.57 (Debian)', '412']);
  });

  it('lower-case the values when case-insensitive', () => {
    expect(extract(kval(['server'], { caseInsensitive: true }))).toEqual(['apache/2.4.57 (debian)']);
  });

  it('join repeated headers with spaces', () => {
    const data = response({
      headers: [
        ['Vary', 'Accept'],
        ['vary', 'Cookie'],
      ],
    });
    expect(extract(kval(['vary']), data)).toEqual(['Accept Cookie']);
  });
});

describe('json extractors', () => {
  const api = response({
    headers: [['Content-Type', 'application/json']],
    body: JSON.stringify({
      version: '7.17.3',
      build: { number: 4521, snapshot: false, ratio: 0.25, big: 1e21, none: null },
      data: {
        url: 'https://files.example/a.zip',
        items: [
          { id: 'f-9', name: 'alpha' },
          { id: 'f-10', name: 'beta' },
        ],
      },
      tags: ['a<b', 'c&d'],
    }),
  });

  it('run jq queries from real templates', () => {
    expect(extract(json(['.version']), api)).toEqual(['7.17.3']);
    expect(extract(json(['.data.url']), api)).toEqual(['https://files.example/a.zip']);
    expect(extract(json(['.data.items[0].id']), api)).toEqual(['f-9']);
    expect(extract(json(['.data.items[] | .name']), api)).toEqual(['alpha', 'beta']);
    expect(extract(json(['.data.items | map(select(.id | test("10$"))) | .[0].name']), api)).toEqual([
      'beta',
    ]);
    expect(extract(json(['.[] | .name'], {}), response({ body: '[{"name":"x"},{"name":"y"}]' }))).toEqual([
      'x',
      'y',
    ]);
  });

  it('print scalars as Go does and other values as Go JSON', () => {
    expect(extract(json(['.build.number', '.build.snapshot', '.build.ratio', '.build.big']), api)).toEqual([
      '4521',
      'false',
      '0.25',
      '1000000000000000000000',
    ]);
    expect(extract(json(['.build.none']), api)).toEqual(['']);
    expect(extract(json(['.data.items[1]', '.tags']), api)).toEqual([
      '{"id":"f-10","name":"beta"}',
      '["a\\u003cb","c\\u0026d"]',
    ]);
  });

  it('keep the results before a runtime error, and extract nothing from a body that is not JSON', () => {
    expect(extract(json(['.tags[], (.version | tonumber), "after"']), api)).toEqual(['a<b', 'c&d']);
    expect(extract(json(['.version']), login)).toEqual([]);
    expect(extract(json(['.a']), response({ body: '{"a":1}{"a":2}' }))).toEqual([]);
  });

  it('are rejected with jq’s reason when a query does not compile', () => {
    const errors = compileErrors(json(['.version', '.data | nosuchfunction', '.a[']));
    expect(errors.map((error) => [error.field, error.valueIndex])).toEqual([
      ['json', 1],
      ['json', 2],
    ]);
    expect(errors[0]?.message).toBe(
      'invalid jq query ".data | nosuchfunction": nosuchfunction/0 is not defined',
    );
    expect(process.exitCode).toBeUndefined();
  });
});

describe('xpath extractors', () => {
  it('extract text or an attribute from sloppy HTML', () => {
    expect(extract(xpathExtractor(['/html/head/title']))).toEqual(['Sign in · Grafana']);
    expect(extract(xpathExtractor(['//input[@type="hidden"]'], { attribute: 'value' }))).toEqual([
      'a1b2c3d4e5',
    ]);
    expect(extract(xpathExtractor(["//meta[@name='version']"], { attribute: 'content' }))).toEqual([
      '10.2.3',
    ]);
    expect(extract(xpathExtractor(['//a'], { attribute: 'href' }))).toEqual(['/forgot', '/signup']);
    expect(extract(xpathExtractor(['//a/@href']))).toEqual(['/forgot', '/signup']);
  });

  it('extract "" for a node without the attribute, as htmlquery does', () => {
    expect(extract(xpathExtractor(['//input'], { attribute: 'value' }))).toEqual(['a1b2c3d4e5', '']);
  });

  it('cope with markup browsers cope with', () => {
    const sloppy = response({
      body: '<TITLE>Admin</title><div><P>one<p>two<td>cell</td><!-- note --></DIV>',
    });
    expect(extract(xpathExtractor(['//title']), sloppy)).toEqual(['Admin']);
    expect(extract(xpathExtractor(['//div/p']), sloppy)).toEqual(['one', 'twocell']);
    const rawText = response({ body: '<title>a <b>bold</b> title</title>' });
    expect(extract(xpathExtractor(['//title']), rawText)).toEqual(['a <b>bold</b> title']);
    const unclosed = response({ body: '<ul><li>first<li>second<a href=/x?a=1&b=2 class=go>go' });
    expect(extract(xpathExtractor(['//li']), unclosed)).toEqual(['first', 'secondgo']);
    expect(extract(xpathExtractor(["//a[@class='go']"], { attribute: 'href' }), unclosed)).toEqual([
      '/x?a=1&b=2',
    ]);
  });
});
