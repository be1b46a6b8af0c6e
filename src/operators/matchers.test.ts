import { describe, expect, it } from 'vitest';
import type { Matcher } from './model.js';
import { compileOperators } from './operators.js';
import {
  binary,
  dslMatcher,
  loginPage,
  operators,
  regex,
  response,
  size,
  status,
  word,
  xpathMatcher,
} from './testing/fixtures.js';

const login = response(loginPage);

function matches(matcher: Matcher, data = login): boolean {
  return operators({ matchers: [matcher] }).execute(data).matched;
}

/** What a named matcher matched (its snippets), as recorded under `matchers-condition: or`. */
function snippets(matcher: Matcher, data = login): readonly string[] | undefined {
  return operators({ matchers: [{ ...matcher, name: 'm' }] })
    .execute(data)
    .matches.get('m');
}

function compileErrors(matcher: Matcher) {
  const compiled = compileOperators({ matchers: [matcher], extractors: [], matchersCondition: 'or' });
  return Array.isArray(compiled) ? compiled : [];
}

describe('word matchers', () => {
  it('find a word in the body by default', () => {
    expect(matches(word(['Sign in · Grafana']))).toBe(true);
    expect(matches(word(['Kibana']))).toBe(false);
  });

  it('need every word under condition and, any word under or', () => {
    expect(matches(word(['Grafana', 'csrf_token'], { condition: 'and' }))).toBe(true);
    expect(matches(word(['Grafana', 'Kibana'], { condition: 'and' }))).toBe(false);
    expect(matches(word(['Kibana', 'Grafana'], { condition: 'or' }))).toBe(true);
  });

  it('compare in lower case when case-insensitive', () => {
    expect(matches(word(['SIGN IN · GRAFANA']))).toBe(false);
    expect(matches(word(['SIGN IN · GRAFANA'], { caseInsensitive: true }))).toBe(true);
  });

  it('look at the header dump, a single header or everything when asked', () => {
    expect(matches(word(['X-Powered-By: PHP/8.2.7'], { part: 'header' }))).toBe(true);
    expect(matches(word(['HTTP/1.1 200 OK'], { part: 'all_headers' }))).toBe(true);
    expect(matches(word(['X-Powered-By']))).toBe(false);
    expect(matches(word(['PHP/8'], { part: 'x_powered_by' }))).toBe(true);
    expect(matches(word(['text/html'], { part: 'content_type' }))).toBe(true);
    expect(matches(word(['Apache', 'csrf_token'], { part: 'all', condition: 'and' }))).toBe(true);
  });

  it('match non-ASCII words in a UTF-8 body', () => {
    expect(matches(word(['добро пожаловать']))).toBe(true);
    expect(matches(word(['ДОБРО'], { caseInsensitive: true }))).toBe(true);
  });

  it('match hex-encoded words against the raw bytes, also when the body is not UTF-8', () => {
    const gzip = response({ body: Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x41]) });
    expect(matches(word(['1f8b08'], { encoding: 'hex' }), gzip)).toBe(true);
    expect(matches(word(['1f8b09'], { encoding: 'hex' }), gzip)).toBe(false);
    expect(matches(word(['fffe61'], { encoding: 'hex', caseInsensitive: true }), gzip)).toBe(true);
  });

  it('keep a word that is not hexadecimal as text, as nuclei does', () => {
    expect(matches(word(['Grafana'], { encoding: 'hex' }))).toBe(true);
  });

  it('report the first word found under or, every word found with match-all', () => {
    expect(snippets(word(['Grafana', 'csrf_token', 'Kibana']))).toEqual(['Grafana']);
    expect(snippets(word(['Grafana', 'csrf_token', 'Kibana'], { matchAll: true }))).toEqual([
      'Grafana',
      'csrf_token',
    ]);
    expect(snippets(word(['Grafana', 'csrf_token'], { condition: 'and' }))).toEqual([
      'Grafana',
      'csrf_token',
    ]);
  });

  it('fill {{variables}} into words before matching', () => {
    const data = response({ ...loginPage, variables: [['product', 'Grafana']] });
    expect(matches(word(['Sign in · {{product}}']), data)).toBe(true);
    expect(matches(word(['{{unknown}}']), data)).toBe(false);
  });

  it('invert the result when negative', () => {
    expect(matches(word(['Kibana'], { negative: true }))).toBe(true);
    expect(matches(word(['Grafana'], { negative: true }))).toBe(false);
  });

  it('fail on a part the response does not have, negative or not', () => {
    expect(matches(word(['x'], { part: 'x_missing_header' }))).toBe(false);
    expect(matches(word(['x'], { part: 'x_missing_header', negative: true }))).toBe(false);
  });
});

describe('regex matchers', () => {
  it('accept Go syntax: inline flags, named groups, POSIX classes, \\A and \\z', () => {
    expect(matches(regex(['(?i)sign IN · grafana']))).toBe(true);
    expect(matches(regex(['(?m)^Server: Apache/2\\.4\\.\\d+'], { part: 'header' }))).toBe(true);
    expect(matches(regex(['content="(?P<version>[[:digit:].]+)"']))).toBe(true);
    expect(matches(regex(['\\A<!DOCTYPE html>']))).toBe(true);
    expect(matches(regex(['</html>\\z']))).toBe(true);
    expect(matches(regex(['\\Ahtml']))).toBe(false);
  });

  it('need every regex under and, any under or', () => {
    expect(matches(regex(['Grafana', 'csrf_\\w+'], { condition: 'and' }))).toBe(true);
    expect(matches(regex(['Grafana', 'Kibana'], { condition: 'and' }))).toBe(false);
    expect(matches(regex(['Kibana', 'Graf[a-z]+']))).toBe(true);
  });

  it('report the first match under or, and every match with match-all or under and', () => {
    expect(snippets(regex(['href=["\'][^"\']+']))).toEqual(['href="/forgot']);
    expect(snippets(regex(['href=["\'][^"\']+'], { matchAll: true }))).toEqual([
      'href="/forgot',
      "href='/signup",
    ]);
    expect(snippets(regex(['\\d+\\.\\d+\\.\\d+'], { condition: 'and' }))).toEqual(['10.2.3', '10.2.3']);
  });

  it('are rejected with the value at fault when they are not RE2 syntax', () => {
    const [error] = compileErrors(regex(['Grafana', 'v(?=\\d)']));
    expect(error).toMatchObject({ operator: 'matcher', index: 0, field: 'regex', valueIndex: 1 });
    expect(error?.message).toContain('invalid regular expression "v(?=\\\\d)"');
  });

  it('do not take case-insensitive, which only word matchers have', () => {
    expect(compileErrors(regex(['x'], { caseInsensitive: true }))[0]).toMatchObject({
      field: 'case-insensitive',
    });
  });
});

describe('status and size matchers', () => {
  it('match any of the listed status codes', () => {
    expect(matches(status([200, 302]))).toBe(true);
    expect(matches(status([401, 403]))).toBe(false);
    expect(matches(status([404], { negative: true }))).toBe(true);
  });

  it('compare sizes in bytes of the part, not characters', () => {
    const body = 'добро'; // 5 characters, 10 bytes in UTF-8
    expect(matches(size([10]), response({ body }))).toBe(true);
    expect(matches(size([5]), response({ body }))).toBe(false);
    expect(matches(size([3]), response({ body: Uint8Array.from([0xff, 0x00, 0xfe]) }))).toBe(true);
  });
});

describe('binary matchers', () => {
  const serialized = response({
    headers: [['Content-Type', 'application/x-java-serialized-object']],
    body: Uint8Array.from([0xac, 0xed, 0x00, 0x05, 0x73, 0x72, 0x00, 0x11]),
  });

  it('match hex values against the raw bytes of the part', () => {
    expect(matches(binary(['aced0005']), serialized)).toBe(true);
    expect(matches(binary(['ACED0005', '7372'], { condition: 'and' }), serialized)).toBe(true);
    expect(matches(binary(['aced0005', 'cafebabe'], { condition: 'and' }), serialized)).toBe(false);
    expect(matches(binary(['cafebabe', '7372']), serialized)).toBe(true);
    expect(matches(binary(['6170706c69636174696f6e2f782d6a617661'], { part: 'header' }), serialized)).toBe(
      true,
    );
  });

  it('are rejected when a value is not hexadecimal', () => {
    expect(compileErrors(binary(['aced', 'xyz1', 'abc']))).toEqual([
      expect.objectContaining({ field: 'binary', valueIndex: 1, message: '"xyz1" is not hexadecimal' }),
      expect.objectContaining({ field: 'binary', valueIndex: 2 }),
    ]);
  });
});

describe('xpath matchers', () => {
  it('query sloppy HTML as a browser would read it', () => {
    expect(matches(xpathMatcher(["/html/head/title[contains(text(), 'Grafana')]"]))).toBe(true);
    expect(
      matches(xpathMatcher(['//input[@name="csrf_token"]', '//a[@class="secondary"]'], { condition: 'and' })),
    ).toBe(true);
    expect(matches(xpathMatcher(['//input[@name="csrf_token"]', '//table'], { condition: 'and' }))).toBe(
      false,
    );
    expect(matches(xpathMatcher(['//table', '//form[@action="/login"]']))).toBe(true);
  });

  it('read a part that starts with an XML declaration as XML', () => {
    const feed = response({ body: '<?xml version="1.0"?><rss><channel><title>News</title></channel></rss>' });
    expect(matches(xpathMatcher(['/rss/channel/title']), feed)).toBe(true);
    expect(
      matches(
        xpathMatcher(['/rss/channel/title']),
        response({ body: '<?xml version="1.0"?><rss><a></rss>' }),
      ),
    ).toBe(false);
  });

  it('are rejected when an expression does not parse', () => {
    expect(compileErrors(xpathMatcher(['//a[']))[0]).toMatchObject({ field: 'xpath', valueIndex: 0 });
  });
});

describe('a dsl matcher expression that fails to evaluate', () => {
  const failing = 'compare_versions("GG", "< 4.8.5")';

  it('is told, and skipped, under or', () => {
    const told: string[] = [];
    const data = { ...login, onDslError: (message: string) => told.push(message) };
    expect(operators({ matchers: [dslMatcher([failing, 'status_code == 200'])] }).execute(data).matched).toBe(
      true,
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^dsl "compare_versions\("GG", "< 4\.8\.5"\)": /);
  });

  it('fails the matcher without a word under and', () => {
    const told: string[] = [];
    const data = { ...login, onDslError: (message: string) => told.push(message) };
    const matcher = dslMatcher([failing], { condition: 'and' });
    expect(operators({ matchers: [matcher] }).execute(data).matched).toBe(false);
    expect(told).toEqual([]);
  });
});
