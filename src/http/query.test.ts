import { describe, expect, it } from 'vitest';
import { encodeQueryComponent, setQueryParams } from './query.js';

describe('setQueryParams', () => {
  it('adds a query to a target that has none', () => {
    expect(setQueryParams('/api', [{ name: 'key', value: 'k' }])).toBe('/api?key=k');
  });

  it('replaces a same-named parameter in place instead of duplicating it', () => {
    expect(setQueryParams('/a?x=1&token=old&y=2', [{ name: 'token', value: 'new' }])).toBe(
      '/a?x=1&token=new&y=2',
    );
  });

  it('drops later duplicates of a replaced parameter', () => {
    expect(setQueryParams('/a?t=1&b=2&t=3', [{ name: 't', value: 'N' }])).toBe('/a?t=N&b=2');
  });

  it('compares names after decoding', () => {
    expect(setQueryParams('/a?tok%65n=old', [{ name: 'token', value: 'new' }])).toBe('/a?token=new');
  });

  it('leaves the path, other parameters and their encoding exactly as written', () => {
    expect(setQueryParams('/a/../b;x?q=%2f+y&&z', [{ name: 'k', value: 'v' }])).toBe(
      '/a/../b;x?q=%2f+y&&z&k=v',
    );
  });

  it('edits absolute-form targets and keeps a fragment', () => {
    expect(setQueryParams('http://h:8080/p?a=1#frag', [{ name: 'k', value: 'v' }])).toBe(
      'http://h:8080/p?a=1&k=v#frag',
    );
  });

  it('percent-encodes names and values so they cannot inject parameters', () => {
    expect(setQueryParams('/', [{ name: 'a b', value: 'x&y=z#é' }])).toBe('/?a%20b=x%26y%3Dz%23%C3%A9');
  });
});

describe('encodeQueryComponent', () => {
  it('keeps only unreserved characters and never throws on lone surrogates', () => {
    expect(encodeQueryComponent("A-z_0.~!*'()")).toBe('A-z_0.~%21%2A%27%28%29');
    expect(encodeQueryComponent('\ud800')).toBe('%EF%BF%BD');
  });
});
