import { describe, expect, it } from 'vitest';
import type { HttpRequest } from './message.js';
import { authority, originOf, requestUrl, serializeRequest } from './request-bytes.js';

const base: HttpRequest = {
  method: 'GET',
  scheme: 'http',
  hostname: 'app.test',
  port: 80,
  target: '/',
  headers: [],
  body: '',
};

describe('authority, origin and URL of a request', () => {
  it('leaves out the default port and brackets IPv6 addresses', () => {
    expect(authority(base)).toBe('app.test');
    expect(authority({ ...base, port: 8080 })).toBe('app.test:8080');
    expect(authority({ scheme: 'https', hostname: '::1', port: 443 })).toBe('[::1]');
    expect(originOf({ scheme: 'https', hostname: '::1', port: 443 })).toBe('https://[::1]:443');
  });

  it('keeps the target as written, without normalising it', () => {
    expect(requestUrl({ ...base, target: '/a/../b/..;/%2e%2e//c?x=1' })).toBe(
      'http://app.test/a/../b/..;/%2e%2e//c?x=1',
    );
    expect(requestUrl({ ...base, target: '*' })).toBe('http://app.test/*');
  });

  it('names where the bytes go for an absolute-form target', () => {
    expect(requestUrl({ ...base, port: 81, target: 'http://elsewhere.test/x?y' })).toBe(
      'http://app.test:81/x?y',
    );
  });
});

describe('serializeRequest', () => {
  it('adds Host first and Content-Length last when the request does not set them', () => {
    const request = { ...base, method: 'POST', headers: [['X-A', '1']], body: 'héllo' } as const;
    expect(serializeRequest(request).toString('utf8')).toBe(
      'POST / HTTP/1.1\r\nHost: app.test\r\nX-A: 1\r\nContent-Length: 6\r\n\r\nhéllo',
    );
  });

  it('keeps the request own Host, framing headers, order and casing', () => {
    const request = {
      ...base,
      method: 'POST',
      headers: [
        ['x-b', '2'],
        ['HOST', 'other'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: '0\r\n\r\n',
    } as const;
    expect(serializeRequest(request).toString('latin1')).toBe(
      'POST / HTTP/1.1\r\nx-b: 2\r\nHOST: other\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
  });

  it('sends Content-Length: 0 on an empty POST, as undici and Go do, but not on an empty GET', () => {
    expect(serializeRequest({ ...base, method: 'POST' }).toString()).toContain('Content-Length: 0\r\n');
    expect(serializeRequest(base).toString()).not.toContain('Content-Length');
  });
});
