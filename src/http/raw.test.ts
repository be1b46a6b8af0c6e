import { describe, expect, it } from 'vitest';
import { RawRequestHead } from './raw.js';

const parse = (raw: string) => {
  const head = RawRequestHead.parse(raw);
  if (head === undefined) throw new Error('not a request');
  return head;
};

describe('RawRequestHead', () => {
  it('gives back exactly the original text when nothing is edited', () => {
    const raw = 'GET /x HTTP/1.1\nHost: a\r\nX:  spaced  \n\nbody\r\n\r\nmore';
    expect(parse(raw).toString()).toBe(raw);
  });

  it('replaces a header whatever its case, in place, keeping every other byte', () => {
    const head = parse('GET / HTTP/1.1\r\nhost: a\r\nAUTHORIZATION: Basic x\r\nX-A: 1\r\n\r\n{"a": 1}');
    head.setHeader('Authorization', 'Bearer t');
    expect(head.toString()).toBe(
      'GET / HTTP/1.1\r\nhost: a\r\nAuthorization: Bearer t\r\nX-A: 1\r\n\r\n{"a": 1}',
    );
  });

  it('removes later duplicates of a replaced header and their folded lines', () => {
    const head = parse('GET / HTTP/1.1\nCookie: a=1\nX: y\ncookie: b=2\n  folded\n\n');
    head.setHeader('Cookie', 'c=3');
    expect(head.toString()).toBe('GET / HTTP/1.1\nCookie: c=3\nX: y\n\n');
  });

  it('appends an absent header with the line ending the request uses', () => {
    const head = parse('GET / HTTP/1.1\nHost: a\n\nbody');
    head.setHeader('x-api-key', 'k');
    expect(head.toString()).toBe('GET / HTTP/1.1\nHost: a\nx-api-key: k\n\nbody');
  });

  it('adds a line break to a last line that had none before appending after it', () => {
    const head = parse('GET / HTTP/1.1\r\nHost: a');
    head.setHeader('X', '1');
    expect(head.toString()).toBe('GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n');
  });

  it('edits the request-target and keeps the method and version text', () => {
    const head = parse('POST  /a?b=1 HTTP/1.0 \r\n\r\n');
    head.setRequestTarget('/a?b=2');
    expect(head.toString()).toBe('POST  /a?b=2 HTTP/1.0 \r\n\r\n');
    expect([head.requestMethod, head.requestTarget]).toEqual(['POST', '/a?b=2']);
  });

  it('reads header values case-insensitively', () => {
    expect(parse('GET / HTTP/1.1\nCookie: a=1\ncookie: b=2\n\n').headerValues('COOKIE')).toEqual([
      'a=1',
      'b=2',
    ]);
  });

  it('refuses text whose first line is not a request line', () => {
    expect(RawRequestHead.parse('')).toBeUndefined();
    expect(RawRequestHead.parse('nonsense\r\n')).toBeUndefined();
  });
});
