import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasScheme, parseTargetUrl, TargetError } from './url.js';

describe('parseTargetUrl', () => {
  it('refuses an empty target and a target without a host', () => {
    expect(parseTargetUrl('')).toBeInstanceOf(TargetError);
    expect(parseTargetUrl('https:///x')).toBeInstanceOf(TargetError);
  });

  it('refuses a port that is not a number', () => {
    expect(parseTargetUrl('http://a.test:http')).toBeInstanceOf(TargetError);
  });

  it('takes a scheme exactly when the URL starts with RFC 3986 scheme characters and ://', () => {
    const schemeChars = fc.constantFrom(...'aZ09+-.:/_ é'.split(''));
    const text = fc.array(schemeChars, { maxLength: 8 }).map((chars) => `${chars.join('')}://a.test/x`);
    fc.assert(
      fc.property(text, (url) => {
        const written = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url.trim())?.[1];
        const parsed = parseTargetUrl(url);
        if (parsed instanceof TargetError) return;
        expect(parsed.scheme).toBe(written?.toLowerCase() ?? '');
      }),
      { numRuns: 500 },
    );
    expect(parseTargetUrl('HTTPS://a.test')).toMatchObject({ scheme: 'https', host: 'a.test' });
  });

  it('splits a URL the same whatever URL was parsed before it', () => {
    const piece = fc.constantFrom(
      'http://',
      'HTTPS://',
      '//',
      'a.test',
      'u:p@',
      '@',
      ':8080',
      ':x',
      '[::1]',
      '/',
      '/p',
      '?',
      'q=1',
      '#',
      'f',
      '..;',
    );
    const url = fc.array(piece, { minLength: 1, maxLength: 7 }).map((parts) => parts.join(''));
    const origin = fc.constantFrom(
      'http://a.test',
      'https://u:p@a.test:8443',
      'http://[::1]:80',
      'http://a.test:8080',
    );
    const after = fc.oneof(
      url,
      fc.tuple(origin, url).map(([o, rest]) => `${o}${rest}`),
    );
    fc.assert(
      fc.property(after, after, (first, second) => {
        parseTargetUrl('ftp://reset.invalid/');
        const alone = parseTargetUrl(second);
        parseTargetUrl(first);
        expect(parseTargetUrl(second)).toEqual(alone);
      }),
      { numRuns: 2000 },
    );
    expect(parseTargetUrl('1http://a.test')).toMatchObject({ scheme: '' });
  });
});

describe('hasScheme', () => {
  it('is true for a URL and false for a host, host:port or an IPv6 address', () => {
    expect(['https://a.test', 'http://10.0.0.5:8080/x', 'HTTP://A.TEST'].map(hasScheme)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['a.test', '10.0.0.5:8080', '::1', '1http://a.test', '://a.test'].map(hasScheme)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
