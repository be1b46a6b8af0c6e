import { describe, expect, it } from 'vitest';
import { parseTargetUrl, type TargetUrl } from '../targets/index.js';
import { parseGoDuration, parseRawRequest, RawRequestError } from './raw.js';

function target(url: string): TargetUrl {
  const parsed = parseTargetUrl(url);
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

const crlf = (lines: string[]): string => lines.join('\r\n');

function parse(text: string, url = 'https://app.test', options = {}) {
  const result = parseRawRequest(text, target(url), options);
  if (result instanceof RawRequestError) throw result;
  return result;
}

describe('parseRawRequest', () => {
  it('reads method, request-target, headers in order and body', () => {
    const r = parse(crlf(['POST /login HTTP/1.1', 'Host: app.test', 'Content-Type: text/plain', '', 'a=1']));
    expect(r.request.method).toBe('POST');
    expect(r.request.target).toBe('/login');
    expect(r.request.headers).toEqual([
      ['Host', 'app.test'],
      ['Content-Type', 'text/plain'],
    ]);
    expect(r.request.body).toBe('a=1');
    expect(r.httpVersion).toBe('HTTP/1.1');
    expect(r.url).toBe('https://app.test/login');
    expect(r.request).toMatchObject({ scheme: 'https', hostname: 'app.test', port: 443 });
  });

  it('tolerates several spaces between the parts of the request line', () => {
    const r = parse(crlf(['POST /v1/auth/users/login  HTTP/1.1', 'Host: x', '', '']));
    expect(r.request.target).toBe('/v1/auth/users/login');
    expect(r.httpVersion).toBe('HTTP/1.1');
  });

  it('reads a header written without a space after the colon', () => {
    const r = parse(crlf(['GET / HTTP/1.1', 'Host:app.test:8080', '', '']));
    expect(r.request.headers).toEqual([['Host', 'app.test:8080']]);
  });

  it('keeps a header with an empty value', () => {
    const r = parse(crlf(['GET / HTTP/1.1', 'Host: a', 'Authorization:', 'Accept: */*', '', '']));
    expect(r.request.headers).toContainEqual(['Authorization', '']);
  });

  it('keeps the target path when the request line has no path', () => {
    const r = parse(crlf(['GET  HTTP/1.1', 'Host: a', '', '']), 'https://app.test/blog/?x=1');
    expect(r.request.target).toBe('/blog/?x=1');
  });

  it('sends "/" when neither the request line nor the target has a path', () => {
    expect(parse(crlf(['GET HTTP/1.1', 'Host: a', '', ''])).request.target).toBe('/');
  });

  it('turns an absolute URL in the request line into the path nuclei sends, on the target host', () => {
    const r = parse(
      crlf(['POST https://app.test/cobbler_api HTTP/1.1', 'Host: a', '', 'x']),
      'https://other.test',
    );
    expect(r.request.target).toBe('/cobbler_api');
    expect(r.request.hostname).toBe('other.test');
  });

  it('joins an absolute URL built from {{BaseURL}} onto a target with a path once', () => {
    const r = parse(
      crlf(['GET https://app.test/blog/login HTTP/1.1', 'Host: a', '', '']),
      'https://app.test/blog',
    );
    expect(r.request.target).toBe('/blog/login');
  });

  it('joins a relative request path onto the target path', () => {
    expect(parse(crlf(['GET /admin HTTP/1.1', '', '']), 'http://app.test/blog').request.target).toBe(
      '/blog/admin',
    );
  });

  it('keeps "GET / HTTP/1.1" on the target path', () => {
    expect(parse(crlf(['GET / HTTP/1.1', '', '']), 'http://app.test/blog').request.target).toBe('/blog');
  });

  it('joins the "/" of "/?query" onto the target path, as nuclei does (only a bare "/" is dropped)', () => {
    expect(parse(crlf(['GET /?a=1 HTTP/1.1', '', '']), 'http://app.test/status').request.target).toBe(
      '/status/?a=1',
    );
    expect(parse(crlf(['GET /?a=1 HTTP/1.1', '', '']), 'http://app.test/status/').request.target).toBe(
      '/status/?a=1',
    );
  });

  it('replaces the target path with disable-path-automerge', () => {
    const r = parse(crlf(['GET /admin HTTP/1.1', '', '']), 'http://app.test/blog', {
      disablePathAutomerge: true,
    });
    expect(r.request.target).toBe('/admin');
  });

  it('keeps the "/" before a query on a target without a path', () => {
    expect(parse(crlf(['GET /?p=1 HTTP/1.1', 'Host: a', '', ''])).request.target).toBe('/?p=1');
    expect(parse(crlf(['GET  HTTP/1.1', 'Host: a', '', '']), 'https://app.test?x=1').request.target).toBe(
      '/?x=1',
    );
  });

  it('merges the target query before the request query', () => {
    const r = parse(crlf(['GET /a?b=2 HTTP/1.1', '', '']), 'http://app.test/?a=1');
    expect(r.request.target).toBe('/a?a=1&b=2');
  });

  it('never normalises dot segments, "..;" or percent-escapes', () => {
    const path = '/goanywhere/images/..;/wizard/../%2e%2e/x%5c';
    expect(parse(crlf([`GET ${path} HTTP/1.1`, '', ''])).request.target).toBe(path);
  });

  it('accepts an HTTP/2 version token', () => {
    const r = parse(crlf(['POST /admin/ HTTP/2', 'Host: a', '', 'x=1']));
    expect(r.httpVersion).toBe('HTTP/2');
    expect(r.request.target).toBe('/admin/');
  });

  it('skips leading annotations and reads @timeout, @Host, @tls-sni and @once', () => {
    const r = parse(
      crlf([
        '@timeout: 10s',
        '@Host: https://other.test:8443',
        '@tls-sni: request.host',
        '@once',
        'GET / HTTP/1.1',
        '',
        '',
      ]),
    );
    expect(r.annotations).toEqual({
      timeoutMs: 10_000,
      host: 'https://other.test:8443',
      tlsSni: 'request.host',
      once: true,
    });
    expect(r.request.method).toBe('GET');
  });

  it('caps @timeout at five minutes, as nuclei does', () => {
    expect(parse(crlf(['@timeout: 1h', 'GET / HTTP/1.1', '', ''])).annotations.timeoutMs).toBe(300_000);
  });

  it('leaves the timeout as it is for an @timeout that is not a duration, as nuclei does', () => {
    expect(parse(crlf(['@timeout: soon', 'GET / HTTP/1.1', '', ''])).annotations.timeoutMs).toBeUndefined();
  });

  it('drops one trailing CRLF from the body', () => {
    expect(parse('POST / HTTP/1.1\r\nHost: a\r\n\r\nbody\r\n').request.body).toBe('body');
  });

  it('keeps the trailing CRLF of a multipart body', () => {
    const r = parse('POST / HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=x\r\n\r\n--x--\r\n');
    expect(r.request.body).toBe('--x--\r\n');
  });

  it('corrects a Content-Length that does not match the body and adds none when absent', () => {
    const withLength = parse(crlf(['POST / HTTP/1.1', 'Content-Length: 99', '', 'abc']));
    expect(withLength.request.headers).toContainEqual(['Content-Length', '3']);
    const without = parse(crlf(['POST / HTTP/1.1', 'Host: a', '', 'abc']));
    expect(without.request.headers.some(([n]) => n.toLowerCase() === 'content-length')).toBe(false);
  });

  it('adds the target Host header when the request has none', () => {
    expect(parse(crlf(['GET / HTTP/1.1', '', '']), 'http://app.test:8080').request.headers).toEqual([
      ['Host', 'app.test:8080'],
    ]);
  });

  it('keeps the last value of a repeated header in the place of the first', () => {
    const r = parse(crlf(['GET / HTTP/1.1', 'X: 1', 'Y: 2', 'X: 3', '', '']));
    expect(r.request.headers).toEqual([
      ['Host', 'app.test'],
      ['X', '3'],
      ['Y', '2'],
    ]);
  });

  it('reports a request line without a path or version', () => {
    const r = parseRawRequest('GET\r\nHost: a\r\n\r\n', target('https://a.test'));
    expect(r).toBeInstanceOf(RawRequestError);
    expect((r as RawRequestError).message).toMatch(/malformed request line "GET"/);
  });

  it('refuses a target without an HTTP scheme', () => {
    const r = parseRawRequest('GET / HTTP/1.1\r\n\r\n', target('app.test'));
    expect((r as RawRequestError).message).toMatch(/no scheme/);
  });

  describe('unsafe requests', () => {
    it('keep every header line, duplicates included, and no Host is added', () => {
      const r = parse(crlf(['GET / HTTP/1.1', 'Host: a', 'Host: b', '', '']), 'http://app.test', {
        unsafe: true,
      });
      expect(r.request.headers).toEqual([
        ['Host', 'a'],
        ['Host', 'b'],
      ]);
    });

    it('keep the rendered bytes with control characters, without annotations', () => {
      const text = '@timeout: 5s\r\nGET /x HTTP/1.1\r\nHost: a\r\n\x0bHost: b\r\n\r\n';
      const r = parse(text, 'http://app.test', { unsafe: true });
      expect(Buffer.from(r.unsafeBytes ?? []).toString('utf8')).toBe(
        'GET /x HTTP/1.1\r\nHost: a\r\n\x0bHost: b\r\n\r\n',
      );
    });

    it('rewrite the request path with the target path in the raw bytes', () => {
      const r = parse('GET /x HTTP/1.1\r\n\r\n', 'http://app.test/base', { unsafe: true });
      expect(r.request.target).toBe('/base/x');
      expect(Buffer.from(r.unsafeBytes ?? []).toString('utf8')).toBe('GET /base/x HTTP/1.1\r\n\r\n');
    });

    it('keep an absolute URL in the request line as written', () => {
      const r = parse('GET http://evil.test/x HTTP/1.1\r\n\r\n', 'http://app.test', { unsafe: true });
      expect(r.request.target).toBe('http://evil.test/x');
      expect(r.url).toBe('http://evil.test/x');
    });
  });
});

describe('parseGoDuration', () => {
  it('reads Go durations in milliseconds', () => {
    expect(parseGoDuration('10s')).toBe(10_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('0')).toBe(0);
  });

  it('rejects text that is not a duration', () => {
    expect(parseGoDuration('10')).toBeUndefined();
    expect(parseGoDuration('ten seconds')).toBeUndefined();
    expect(parseGoDuration('')).toBeUndefined();
  });
});

describe('a raw request path with an invalid percent escape', () => {
  it('is sent with its % encoded as %25', () => {
    const r = parse(crlf(['GET /xyz/%u2s/%invalid HTTP/1.1', 'Host: app.test', '', '']));
    expect(r.request.target).toBe('/xyz/%25u2s/%25invalid');
    expect(r.url).toBe('https://app.test/xyz/%25u2s/%25invalid');
  });

  it('is sent as written in an unsafe request', () => {
    const r = parse(crlf(['GET /xyz/%u2s/%invalid HTTP/1.1', 'Host: app.test', '', '']), 'https://app.test', {
      unsafe: true,
    });
    expect(Buffer.from(r.unsafeBytes ?? []).toString('utf8')).toContain('GET /xyz/%u2s/%invalid HTTP/1.1');
  });
});
