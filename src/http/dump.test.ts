import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from './curl.js';
import { dumpRawRequest, dumpRequest, dumpResponse } from './dump.js';
import type { HttpRequest } from './message.js';
import type { HttpResponse } from './response.js';

const login: HttpRequest = {
  method: 'POST',
  scheme: 'https',
  hostname: 'app.test',
  port: 8443,
  target: '/login?next=/admin',
  headers: [
    ['User-Agent', 'keyhole'],
    ['Content-Type', 'application/x-www-form-urlencoded'],
    ['accept', '*/*'],
    ['X-Multi', 'a'],
    ['x-multi', 'b'],
  ],
  body: "user=admin&pass=it's",
};

const response: HttpResponse = {
  httpVersion: 'HTTP/1.1',
  statusCode: 200,
  reason: 'OK',
  headers: [['Content-Length', '5']],
  rawHead: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n',
  rawHeadBytes: Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'),
  body: Buffer.from('hello'),
  truncatedAt: undefined,
  durationMs: 1,
  remoteAddress: '127.0.0.1',
  url: 'https://app.test:8443/login',
};

describe('dumps', () => {
  it('dumps a request as it goes out: request line, Host first, headers, Content-Length, body', () => {
    expect(dumpRequest(login)).toBe(
      'POST /login?next=/admin HTTP/1.1\r\nHost: app.test:8443\r\nUser-Agent: keyhole\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\naccept: */*\r\nX-Multi: a\r\nx-multi: b\r\n' +
        "Content-Length: 20\r\n\r\nuser=admin&pass=it's",
    );
  });

  it('dumps a response as its head exactly as received and its decoded body', () => {
    expect(dumpResponse(response)).toBe('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
  });

  it('caps bodies in dumps', () => {
    expect(dumpResponse({ ...response, body: Buffer.alloc(10, 'x') }, { maxBodyBytes: 4 })).toMatch(
      /\r\n\r\nxxxx$/,
    );
    expect(dumpRequest({ ...login, body: 'abcdef' }, { maxBodyBytes: 2 })).toMatch(
      /Content-Length: 6\r\n\r\nab$/,
    );
  });

  it('dumps an unsafe request as the bytes given', () => {
    const raw = 'GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nbody';
    expect(dumpRawRequest(raw)).toBe(raw);
    expect(dumpRawRequest(raw, { maxBodyBytes: 1 })).toBe('GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nb');
  });
});

describe('curlCommand', () => {
  it('writes the command in nuclei format: method, body, sorted headers, URL, all single-quoted', () => {
    expect(curlCommand(login)).toBe(
      "curl -X 'POST' -d 'user=admin&pass=it'\\''s' -H 'Content-Type: application/x-www-form-urlencoded' " +
        "-H 'User-Agent: keyhole' -H 'X-Multi: a b' -H 'accept: */*' 'https://app.test:8443/login?next=/admin'",
    );
  });

  it("writes -d '' for a request without a body, as nuclei does", () => {
    const request: HttpRequest = { ...login, method: 'GET', port: 443, target: '/', headers: [], body: '' };
    expect(curlCommand(request)).toBe("curl -X 'GET' -d '' 'https://app.test/'");
  });

  it('quotes anything for a POSIX shell', () => {
    expect(shellQuote(`a'b"c$d\`e\\f`)).toBe(`'a'\\''b"c$d\`e\\f'`);
  });
});
