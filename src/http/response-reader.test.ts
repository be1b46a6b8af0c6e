import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedHeadError } from './response.js';
import { MalformedBodyError, ResponseReader } from './response-reader.js';

/** Feeds `bytes` to a reader in pieces cut at `cuts`; then closes the connection if still open. */
function read(bytes: Buffer, cuts: number[], method = 'GET', cap = 1 << 20) {
  const reader = new ResponseReader(method, cap);
  let done = false;
  let start = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (!done) done = reader.feed(bytes.subarray(start, cut));
    start = cut;
  }
  const cutShort = done ? undefined : reader.closed();
  return { reader, done, cutShort };
}

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/);
const value = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,20}[\x21-\x7e])?$/);

const response = fc.record({
  status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
  headers: fc
    .array(fc.tuple(token, value), { maxLength: 5 })
    .map((headers) => headers.filter(([name]) => !/^(content-length|transfer-encoding)$/i.test(name))),
  body: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  framing: fc.constantFrom('length', 'chunked', 'close'),
  lineEnd: fc.constantFrom('\r\n', '\n'),
});

type Generated = typeof response extends fc.Arbitrary<infer T> ? T : never;

function encode(r: Generated): Buffer {
  const end = r.lineEnd;
  const headers = r.headers.map(([name, text]) => `${name}: ${text}${end}`).join('');
  const framing =
    r.framing === 'length'
      ? `Content-Length: ${r.body.length}${end}`
      : r.framing === 'chunked'
        ? `Transfer-Encoding: chunked${end}`
        : '';
  const head = Buffer.from(`HTTP/1.1 ${r.status} Reason${end}${headers}${framing}${end}`, 'latin1');
  if (r.framing !== 'chunked') return Buffer.concat([head, r.body]);
  const chunks =
    r.body.length === 0 ? [] : [r.body.subarray(0, 7), r.body.subarray(7)].filter((c) => c.length > 0);
  const parts = chunks.flatMap((chunk) => [
    Buffer.from(`${chunk.length.toString(16)}\r\n`),
    chunk,
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([head, ...parts, Buffer.from('0\r\n\r\n')]);
}

describe('ResponseReader', () => {
  it('reads the same response however the bytes are split', () => {
    fc.assert(
      fc.property(response, fc.array(fc.nat({ max: 700 }), { maxLength: 6 }), (r, cuts) => {
        const { reader, cutShort } = read(encode(r), cuts);
        expect(reader.head?.statusCode).toBe(r.status);
        expect(reader.head?.headers.slice(0, r.headers.length)).toEqual(r.headers);
        expect(reader.body().equals(r.body)).toBe(true);
        expect(cutShort).toBeUndefined();
      }),
    );
  });

  it('never fails on arbitrary bytes with anything but a malformed-response error', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.boolean(),
        fc.array(fc.nat({ max: 450 })),
        (data, http, cuts) => {
          const prefix = http ? Buffer.from('HTTP/1.1 200 OK\r\n') : Buffer.alloc(0);
          try {
            read(Buffer.concat([prefix, Buffer.from(data)]), cuts);
          } catch (error) {
            expect(error instanceof MalformedHeadError || error instanceof MalformedBodyError).toBe(true);
          }
        },
      ),
    );
  });

  it('reads no body after HEAD and stops at the cap', () => {
    const bytes = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789');
    expect(read(bytes, [], 'HEAD').reader.body().length).toBe(0);
    const capped = read(bytes, [], 'GET', 4);
    expect(capped.reader.body().toString()).toBe('0123');
    expect(capped.reader.truncatedAtCap).toBe(true);
  });

  it('says what a body lacked when the connection closes before its length or its last chunk', () => {
    const { reader, cutShort } = read(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123'), []);
    expect(reader.body().toString()).toBe('0123');
    expect(cutShort).toBe('4 of its 10 bytes arrived');
    const chunked = read(
      Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'),
      [],
    );
    expect(chunked.cutShort).toBe('its last chunk never arrived (5 bytes did)');
    const closeDelimited = read(Buffer.from('HTTP/1.1 200 OK\r\n\r\nuntil close'), []);
    expect(closeDelimited.cutShort).toBeUndefined();
  });
});

describe('ResponseReader framing and reuse', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');

  it('uses Content-Length only when all its values agree, else reads until the close', () => {
    const agreeing = read(
      bytes('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nokEXTRA'),
      [],
    );
    expect(agreeing.reader.body().toString()).toBe('ok');
    const disagreeing = read(
      bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 3\r\n\r\nokEXTRA'),
      [],
    );
    expect(disagreeing.reader.body().toString()).toBe('okEXTRA');
    expect(disagreeing.cutShort).toBeUndefined();
  });

  it('says a connection can carry the next request only when the response ended exactly', () => {
    const exact = read(bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), [5, 20]);
    expect(exact.reader.reusable).toBe(true);
    const chunked = read(
      bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'),
      [30],
    );
    expect(chunked.reader.reusable).toBe(true);
    const surplus = read(bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK'), []);
    expect(surplus.reader.reusable).toBe(false);
    const chunkedSurplus = read(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nX'), []);
    expect(chunkedSurplus.reader.reusable).toBe(false);
    const bodiless = read(bytes('HTTP/1.1 204 No Content\r\n\r\nX'), []);
    expect(bodiless.reader.reusable).toBe(false);
    expect(read(bytes('HTTP/1.1 200 OK\r\n\r\nuntil close'), []).reader.reusable).toBe(false);
    expect(
      read(bytes('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nokok'), [], 'GET', 2).reader.reusable,
    ).toBe(false);
    expect(read(bytes('HTTP/1.1 101 Switching Protocols\r\n\r\n'), []).reader.reusable).toBe(false);
  });
});
