import { encodeHTML, encodeXML, escapeUTF8 } from 'entities';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeQueryComponent } from '../http/index.js';
import { MIN_REDACTED_LENGTH, REDACTED, Redactor } from './redact.js';

describe('Redactor', () => {
  it('masks registered values anywhere in a text', () => {
    const r = new Redactor();
    r.register('s3cr3t-token');
    expect(r.redact('Authorization: Bearer s3cr3t-token\nagain s3cr3t-token')).toBe(
      'Authorization: Bearer [REDACTED]\nagain [REDACTED]',
    );
  });

  it('masks the Basic credential of a basic-auth secret, even with a short password', () => {
    const r = new Redactor();
    r.registerCredential({ type: 'basicauth', username: 'admin', password: 'pw' });
    const basic = Buffer.from('admin:pw').toString('base64');
    expect(r.redact(`Authorization: Basic ${basic}`)).toBe('Authorization: Basic [REDACTED]');
  });

  it('masks percent-encoded and form-encoded forms, as query values appear on the wire', () => {
    const r = new Redactor();
    r.registerCredential({ type: 'query', params: [{ name: 'api_key', value: 'a b&c/d' }] });
    expect(r.redact('GET /?api_key=a%20b%26c%2Fd')).toBe('GET /?api_key=[REDACTED]');
    expect(r.redact('GET /?api_key=a+b%26c%2Fd')).toBe('GET /?api_key=[REDACTED]');
  });

  it('masks the JSON-escaped form, as values appear inside JSONL output', () => {
    const r = new Redactor();
    r.register('quote"back\\slash');
    expect(r.redact(JSON.stringify({ request: 'x quote"back\\slash y' }))).toBe(
      '{"request":"x [REDACTED] y"}',
    );
  });

  it('does not mask values shorter than four characters on their own', () => {
    const r = new Redactor();
    r.register('ab');
    r.register('abc');
    r.register('abcd');
    expect(r.redact('ab abc abcd')).toBe('ab abc [REDACTED]');
  });

  it('masks the longest value first when values overlap', () => {
    const r = new Redactor();
    r.register('token');
    r.register('token-extended');
    expect(r.redact('x token-extended y token')).toBe('x [REDACTED] y [REDACTED]');
  });

  it('treats regex characters in values literally', () => {
    const r = new Redactor();
    r.register('a.b*c(d)');
    expect(r.redact('a.b*c(d) aXbbc(d)')).toBe('[REDACTED] aXbbc(d)');
  });

  it('leaves text alone when nothing is registered', () => {
    expect(new Redactor().redact('plain')).toBe('plain');
  });

  describe('registerHeader (values given with -H)', () => {
    it('masks an Authorization header, whole and by its credential after the scheme', () => {
      const r = new Redactor();
      r.registerHeader('Authorization', 'Bearer eyJhbGciOi.payload.sig');
      expect(r.redact('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe('Authorization: [REDACTED]');
      expect(r.redact('token=eyJhbGciOi.payload.sig')).toBe('token=[REDACTED]');
    });

    it('masks the values of API-key, token and session headers whatever their case', () => {
      const r = new Redactor();
      r.registerHeader('X-API-Key', 'key-123456');
      r.registerHeader('x-auth-token', 'tok-abcdef');
      r.registerHeader('X-Session', 'sess-7777');
      expect(r.redact('key-123456 tok-abcdef sess-7777')).toBe('[REDACTED] [REDACTED] [REDACTED]');
    });

    it('masks each cookie value of a Cookie header, values with = included', () => {
      const r = new Redactor();
      r.registerHeader('Cookie', 'sid=abc123def; jwt=eyJ0eXAi==; lang=en');
      expect(r.redact('Set-Cookie: sid=abc123def\njwt=eyJ0eXAi==')).toBe(
        'Set-Cookie: sid=[REDACTED]\njwt=[REDACTED]',
      );
    });

    it('leaves ordinary headers readable', () => {
      const r = new Redactor();
      r.registerHeader('User-Agent', 'Mozilla/5.0 keyhole');
      r.registerHeader('Accept', 'application/json');
      expect(r.size).toBe(0);
    });
  });
});

/** How encoders write a text's characters (each leaves ASCII letters and digits as they are). */
const WRITINGS: Readonly<Record<string, (text: string) => string>> = {
  'as is': (text) => text,
  percent: encodeURIComponent,
  'percent, lower-case hex': (text) =>
    encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  'percent, all but letters and digits': (text) =>
    [...Buffer.from(text)]
      .map((b) =>
        /[A-Za-z0-9]/.test(String.fromCharCode(b))
          ? String.fromCharCode(b)
          : `%${b.toString(16).padStart(2, '0')}`,
      )
      .join(''),
  'form (+ for spaces)': (text) => new URLSearchParams({ v: text }).toString().slice(2),
  "keyhole's query encoding": encodeQueryComponent,
  JSON: (text) => JSON.stringify(text).slice(1, -1),
  'JSON, ASCII only': (text) =>
    JSON.stringify(text)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  'JSON, slashes escaped': (text) => JSON.stringify(text).slice(1, -1).replaceAll('/', '\\/'),
  'JSON, HTML-safe (as Go writes it)': (text) =>
    JSON.stringify(text)
      .slice(1, -1)
      .replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16).toUpperCase()}`),
  'HTML, named references': encodeHTML,
  'HTML, special characters only': escapeUTF8,
  'XML, hex references': encodeXML,
  'HTML, decimal references': (text) =>
    [...text].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `&#${c.codePointAt(0)};`)).join(''),
};

/** The base64 forms of a text, as targets echo a token or a Basic credential. */
const BASE64: Readonly<Record<string, (text: string) => string>> = {
  base64: (text) => Buffer.from(text).toString('base64'),
  'base64 without padding': (text) => Buffer.from(text).toString('base64').replace(/=+$/, ''),
  'base64, URL-safe': (text) => Buffer.from(text).toString('base64url'),
};

const writing = fc.constantFrom(...Object.entries(WRITINGS));
const base64 = fc.constantFrom(...Object.entries(BASE64));

/** Characters that encoders write, so that the text around a secret looks like its encodings. */
const noise = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...'%&#;\\u+=/ xX0aA'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

/**
 * True when `found` could be made anew from the marker and the text around it ("[REDACTED]" then
 * "x" holds "ED]x"): such a finding is not the secret left in place.
 */
function madeByMarker(found: string): boolean {
  if (REDACTED.includes(found)) return true;
  for (let i = 1; i < REDACTED.length; i++) if (found.startsWith(REDACTED.slice(i))) return true;
  return false;
}

describe('Redactor, whatever the encoding', () => {
  it('leaves no secret value of four characters or more in text, written in any common way', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: MIN_REDACTED_LENGTH, maxLength: 24 }),
        writing,
        fc.option(base64),
        noise,
        noise,
        (secret, [, write], encoded, before, after) => {
          const written = write(encoded === null ? secret : encoded[1](secret));
          fc.pre(!madeByMarker(written));
          const r = new Redactor();
          r.register(secret);
          expect(r.redact(`${before}${written}${after}`)).not.toContain(written);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("leaves no Basic credential of four characters or more in text, written in any common way, whatever its parts' lengths", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.string({ unit: 'binary', maxLength: 12 }),
        base64,
        writing,
        noise,
        noise,
        (username, password, [, encode], [, write], before, after) => {
          const credential = encode(`${username}:${password}`);
          const written = write(credential);
          fc.pre(credential.length >= MIN_REDACTED_LENGTH && !madeByMarker(written));
          const r = new Redactor();
          r.registerCredential({ type: 'basicauth', username, password });
          expect(r.redact(`${before}${written}${after}`)).not.toContain(written);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('masks a reflected Basic credential or password however the target encoded it', () => {
    const r = new Redactor();
    r.registerCredential({ type: 'basicauth', username: 'admin', password: 'p@ss w/rd=1' });
    const basic = Buffer.from('admin:p@ss w/rd=1').toString('base64');
    expect(r.redact(`auth=${encodeURIComponent(basic)}`)).toBe(`auth=${REDACTED}`);
    expect(r.redact(`auth=${basic.replace('=', '%3d')}`)).toBe(`auth=${REDACTED}`);
    expect(r.redact('pw=p%40ss+w%2frd%3d1&x')).toBe(`pw=${REDACTED}&x`);
    expect(r.redact('<input value="p&#64;ss w&#x2F;rd&equals;1">')).toBe(`<input value="${REDACTED}">`);
    expect(r.redact('{"pw":"p@ss w\\/rd\\u003d1"}')).toBe(`{"pw":"${REDACTED}"}`);
  });
});
