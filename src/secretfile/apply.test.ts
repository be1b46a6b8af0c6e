import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../http/index.js';
import { applyCredential, applyCredentialToRaw, basicAuthorization } from './apply.js';

const request = (over: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'GET',
  scheme: 'https',
  hostname: 'app.test',
  port: 443,
  target: '/a?x=1',
  headers: [
    ['Host', 'app.test'],
    ['authorization', 'Basic old'],
    ['X-API-KEY', 'old'],
    ['Cookie', 'theme=dark; sid=old'],
  ],
  body: '',
  ...over,
});

describe('applying a secret to a request', () => {
  it('basicauth replaces Authorization with Basic base64(username:password)', () => {
    const out = applyCredential(request(), { type: 'basicauth', username: 'admin', password: 'p@ss:word' });
    expect(out.headers[1]).toEqual([
      'Authorization',
      `Basic ${Buffer.from('admin:p@ss:word').toString('base64')}`,
    ]);
    expect(out.headers.filter(([n]) => n.toLowerCase() === 'authorization')).toHaveLength(1);
  });

  it('basicauth encodes non-ASCII credentials as UTF-8', () => {
    expect(basicAuthorization('jöe', 'pässword')).toBe(
      `Basic ${Buffer.from('jöe:pässword', 'utf8').toString('base64')}`,
    );
  });

  it('bearertoken replaces Authorization', () => {
    const out = applyCredential(request(), { type: 'bearertoken', token: 'tok' });
    expect(out.headers).toContainEqual(['Authorization', 'Bearer tok']);
    expect(out.headers.filter(([n]) => n.toLowerCase() === 'authorization')).toHaveLength(1);
  });

  it('headers are replaced whatever their case and sent with the casing of the file', () => {
    const out = applyCredential(request(), {
      type: 'header',
      headers: [{ name: 'x-api-key', value: 'new' }],
    });
    expect(out.headers).toEqual([
      ['Host', 'app.test'],
      ['authorization', 'Basic old'],
      ['x-api-key', 'new'],
      ['Cookie', 'theme=dark; sid=old'],
    ]);
  });

  it('cookies are merged into the one Cookie header, same names replaced, order kept', () => {
    const out = applyCredential(request(), {
      type: 'cookie',
      cookies: [
        { name: 'sid', value: 'new' },
        { name: 'csrf', value: 'c' },
      ],
    });
    expect(out.headers[3]).toEqual(['Cookie', 'theme=dark; sid=new; csrf=c']);
  });

  it('a raw cookie whose value contains "=" keeps its whole value', () => {
    const out = applyCredential(request({ headers: [] }), {
      type: 'cookie',
      cookies: [{ name: 'jwt', value: 'eyJ.x==' }],
    });
    expect(out.headers).toEqual([['Cookie', 'jwt=eyJ.x==']]);
  });

  it('query params are replaced, not duplicated, and percent-encoded', () => {
    const out = applyCredential(request({ target: '/a?api_key=old&x=1' }), {
      type: 'query',
      params: [
        { name: 'api_key', value: 'n&w' },
        { name: 'tenant', value: 'a b' },
      ],
    });
    expect(out.target).toBe('/a?api_key=n%26w&x=1&tenant=a%20b');
  });

  it('leaves the rest of the request untouched', () => {
    const before = request({ body: 'x=1' });
    const out = applyCredential(before, { type: 'bearertoken', token: 't' });
    expect({ ...out, headers: before.headers }).toEqual(before);
  });
});

describe('applying a secret to a raw request', () => {
  const raw =
    'GET /a?x=1 HTTP/1.1\r\nHost: app.test\r\nauthorization: Basic old\r\nCookie: sid=old; a=1\r\n\r\nbody\r\n';

  it('replaces Authorization on its line and keeps every other byte', () => {
    expect(applyCredentialToRaw(raw, { type: 'bearertoken', token: 't' })).toBe(
      'GET /a?x=1 HTTP/1.1\r\nHost: app.test\r\nAuthorization: Bearer t\r\nCookie: sid=old; a=1\r\n\r\nbody\r\n',
    );
  });

  it('merges cookies into the Cookie line', () => {
    expect(applyCredentialToRaw(raw, { type: 'cookie', cookies: [{ name: 'sid', value: 'n' }] })).toBe(
      'GET /a?x=1 HTTP/1.1\r\nHost: app.test\r\nauthorization: Basic old\r\nCookie: sid=n; a=1\r\n\r\nbody\r\n',
    );
  });

  it('sets query params in the request line only', () => {
    expect(applyCredentialToRaw(raw, { type: 'query', params: [{ name: 'x', value: '2' }] })).toBe(
      'GET /a?x=2 HTTP/1.1\r\nHost: app.test\r\nauthorization: Basic old\r\nCookie: sid=old; a=1\r\n\r\nbody\r\n',
    );
  });

  it('adds headers at the end of the head', () => {
    expect(
      applyCredentialToRaw('GET / HTTP/1.1\nHost: h\n\n', {
        type: 'header',
        headers: [{ name: 'X-K', value: 'v' }],
      }),
    ).toBe('GET / HTTP/1.1\nHost: h\nX-K: v\n\n');
  });

  it('refuses text without a request line', () => {
    expect(applyCredentialToRaw('\r\n\r\n', { type: 'bearertoken', token: 't' })).toBeUndefined();
  });
});
