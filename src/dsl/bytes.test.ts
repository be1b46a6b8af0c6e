import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteLength, bytesToText, textToBytes } from './bytes.js';
import { evaluate } from './testing/evaluate.js';
import { TOMCAT_FAVICON_BASE64 } from './testing/tomcat-favicon.js';

describe('the byte representation', () => {
  it('decodes valid UTF-8 to ordinary characters', () => {
    expect(bytesToText(Buffer.from('héllo wörld 😀', 'utf8'))).toBe('héllo wörld 😀');
  });

  it('keeps a byte order mark', () => {
    expect(bytesToText(Uint8Array.of(0xef, 0xbb, 0xbf, 0x41))).toBe('\ufeffA');
  });

  it('escapes each byte outside valid UTF-8 as a lone surrogate', () => {
    expect(bytesToText(Uint8Array.of(0x41, 0xff, 0x42))).toBe('A\udcffB');
    expect(bytesToText(Uint8Array.of(0xe2, 0x82))).toBe('\udce2\udc82');
    expect(bytesToText(Uint8Array.of(0xed, 0xa0, 0x80))).toBe('\udced\udca0\udc80');
    expect(bytesToText(Uint8Array.of(0xc0, 0xaf))).toBe('\udcc0\udcaf');
  });

  it('round-trips every byte sequence exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(Buffer.compare(textToBytes(bytesToText(bytes)), Buffer.from(bytes))).toBe(0);
        expect(byteLength(bytesToText(bytes))).toBe(bytes.length);
      }),
    );
  });

  it('encodes text that never was bytes as UTF-8', () => {
    expect(textToBytes('é').toString('hex')).toBe('c3a9');
  });

  it('gives len, hex_encode, md5 and base64 the bytes Go sees on a binary body', () => {
    const body = bytesToText(
      Uint8Array.of(0x00, 0x00, 0x00, 0x01, 0x42, 0x75, 0x64, 0x31, 0xff, 0xd8, 0xc3, 0xa9),
    );
    expect(evaluate('len(body)', { body })).toBe(12);
    expect(evaluate('hex_encode(body)', { body })).toBe('0000000142756431ffd8c3a9');
    expect(evaluate('md5(body)', { body })).toBe('f8f60c8da2425cd4d6b0e4a7ef96992c');
    expect(evaluate('base64(body)', { body })).toBe('AAAAAUJ1ZDH/2MOp');
  });

  it('lets a .DS_Store matcher find its magic bytes (nuclei ds-store-file template)', () => {
    const body = bytesToText(Uint8Array.of(0x00, 0x00, 0x00, 0x01, 0x42, 0x75, 0x64, 0x31, 0x00, 0x40, 0x00));
    expect(evaluate("contains(hex_encode(body), '0000000142756431')", { body })).toBe(true);
    expect(evaluate("contains(body, '\0@\0')", { body })).toBe(true);
  });
});

describe('favicon hashes', () => {
  it("reproduce Shodan's hash of Apache Tomcat's favicon with mmh3(base64_py(body))", () => {
    const body = bytesToText(Buffer.from(TOMCAT_FAVICON_BASE64, 'base64'));
    expect(evaluate('len(body)', { body })).toBe(21630);
    expect(evaluate('mmh3(base64_py(body))', { body })).toBe('-297069493');
    expect(
      evaluate('status_code == 200 && ("-297069493" == mmh3(base64_py(body)))', { body, status_code: 200 }),
    ).toBe(true);
  });
});
