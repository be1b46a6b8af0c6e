import { describe, expect, it } from 'vitest';
import { mergeCookieHeader, parseRawCookie } from './cookie.js';

describe('mergeCookieHeader', () => {
  it('replaces a same-named cookie where it stands and keeps the others in order', () => {
    expect(mergeCookieHeader(['a=1; sid=old; b=2'], [{ name: 'sid', value: 'new' }])).toBe(
      'a=1; sid=new; b=2',
    );
  });

  it('appends new cookies after the existing ones in the order given', () => {
    expect(
      mergeCookieHeader(
        ['a=1'],
        [
          { name: 'x', value: '1' },
          { name: 'y', value: '2' },
        ],
      ),
    ).toBe('a=1; x=1; y=2');
  });

  it('merges several Cookie headers into one and drops later duplicates of a replaced cookie', () => {
    expect(mergeCookieHeader(['sid=1; a=1', 'sid=2;b=2'], [{ name: 'sid', value: 'S' }])).toBe(
      'sid=S; a=1; b=2',
    );
  });

  it('compares cookie names case-sensitively', () => {
    expect(mergeCookieHeader(['SID=1'], [{ name: 'sid', value: '2' }])).toBe('SID=1; sid=2');
  });

  it('builds a header from nothing and keeps values containing "="', () => {
    expect(mergeCookieHeader([], [{ name: 'jwt', value: 'a.b=c==' }])).toBe('jwt=a.b=c==');
  });

  it('keeps segments without "=" as written', () => {
    expect(mergeCookieHeader(['flag; a=1'], [{ name: 'a', value: '2' }])).toBe('flag; a=2');
  });
});

describe('parseRawCookie', () => {
  it('splits at the first "=" so values may contain "="', () => {
    expect(parseRawCookie('token=YWJj==')).toEqual({ ok: true, cookie: { name: 'token', value: 'YWJj==' } });
  });

  it('drops a Set-Cookie: prefix in any casing and the attributes after the first ";"', () => {
    expect(parseRawCookie('set-cookie: sid=abc; Path=/; HttpOnly')).toEqual({
      ok: true,
      cookie: { name: 'sid', value: 'abc' },
    });
    expect(parseRawCookie('Set-Cookie:sid=abc')).toEqual({ ok: true, cookie: { name: 'sid', value: 'abc' } });
  });

  it('accepts an empty value', () => {
    expect(parseRawCookie('a=')).toEqual({ ok: true, cookie: { name: 'a', value: '' } });
  });

  it('refuses text without "=", an empty name and a name with spaces', () => {
    for (const raw of ['garbage', '=v', 'a b=c']) expect(parseRawCookie(raw).ok).toBe(false);
  });
});
