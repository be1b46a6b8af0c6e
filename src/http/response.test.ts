import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findHeadEnd, MalformedHeadError, parseResponseHead, takeFinalHead } from './response.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('parseResponseHead', () => {
  it('reads version, status, reason and headers in order with their casing', () => {
    const text = 'HTTP/1.1 404 Not Found\r\nX-A: 1\r\nx-a: 2\r\nServer:  nginx \r\n\r\n';
    const head = parseResponseHead(bytes(text));
    expect(head).toEqual({
      httpVersion: 'HTTP/1.1',
      statusCode: 404,
      reason: 'Not Found',
      headers: [
        ['X-A', '1'],
        ['x-a', '2'],
        ['Server', 'nginx'],
      ],
      rawHead: text,
      rawHeadBytes: bytes(text),
    });
  });

  it('accepts bare LF line ends, a missing reason and folded header lines', () => {
    const head = parseResponseHead(bytes('HTTP/1.0 200\nX-Long: a\n  b\nno colon here\nServer:x\n\n'));
    expect(head.statusCode).toBe(200);
    expect(head.reason).toBe('');
    expect(head.headers).toEqual([
      ['X-Long', 'a b'],
      ['Server', 'x'],
    ]);
  });

  it('decodes header values as UTF-8', () => {
    const head = parseResponseHead(Buffer.from('HTTP/1.1 200 OK\r\nX-Name: café\r\n\r\n', 'utf8'));
    expect(head.headers).toEqual([['X-Name', 'café']]);
  });

  it('rejects a head that does not start with an HTTP status line', () => {
    expect(() => parseResponseHead(bytes('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(MalformedHeadError);
    expect(() => parseResponseHead(bytes('HTTP/1.1 OK\r\n\r\n'))).toThrow(/not an HTTP status line/);
  });

  it('never fails on arbitrary bytes with anything but MalformedHeadError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (data, prefixed) => {
        const input = Buffer.concat([
          prefixed ? bytes('HTTP/1.1 200 OK\r\n') : Buffer.alloc(0),
          Buffer.from(data),
        ]);
        try {
          const head = parseResponseHead(input);
          expect(head.statusCode).toBeGreaterThanOrEqual(0);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedHeadError);
        }
      }),
    );
  });
});

describe('findHeadEnd', () => {
  it('finds the blank line with CRLF or LF line ends, or reports an incomplete head', () => {
    expect(findHeadEnd(bytes('HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody'))).toBe(25);
    expect(findHeadEnd(bytes('HTTP/1.1 200 OK\nA: b\n\nbody'))).toBe(22);
    expect(findHeadEnd(bytes('HTTP/1.1 200 OK\r\nA: b\r\n'))).toBe(-1);
  });
});

describe('takeFinalHead', () => {
  it('skips interim 1xx heads and returns the final head with where its body starts', () => {
    const input = bytes(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 200 OK\r\nA: 1\r\n\r\nbody',
    );
    const found = takeFinalHead(input);
    expect(found?.head.statusCode).toBe(200);
    expect(found?.head.rawHead).toBe('HTTP/1.1 200 OK\r\nA: 1\r\n\r\n');
    expect(input.subarray(found?.bodyStart).toString()).toBe('body');
  });

  it('waits while only interim heads have arrived', () => {
    expect(takeFinalHead(bytes('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200'))).toBeUndefined();
  });
});
