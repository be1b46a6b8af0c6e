/**
 * Cookies are signed here as each framework documents it, with node:crypto, under a key of the leaked-key
 * list (or one that is not on it).
 */
import { createCipheriv, createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { evaluate, evaluationFailure } from '../testing/evaluate.js';
import { parseWordlist, signingKeys } from './cookie-keys.js';
import { unsignCookie } from './cookie-unsign.js';

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const hmac = (hash: string, key: Buffer | string, data: Buffer | string) =>
  createHmac(hash, key).update(data).digest();
const digest = (hash: string, data: string) => createHash(hash).update(data).digest();

/** A key nobody leaked: each run its own. */
const UNKNOWN_KEY = randomBytes(24).toString('hex');

/** Flask: itsdangerous URLSafeTimedSerializer, salt "cookie-session", HMAC key derivation, SHA-1. */
function flaskCookie(secret: string, session: object): string {
  const timestamp = Buffer.alloc(4);
  timestamp.writeUInt32BE(1_700_000_000);
  const value = `${b64url(JSON.stringify(session))}.${b64url(timestamp)}`;
  return `${value}.${b64url(hmac('sha1', hmac('sha1', secret, 'cookie-session'), value))}`;
}

/** Django ≥ 3.1 signed_cookies session: TimestampSigner, SHA-256, key = sha256(salt + "signer" + secret). */
function djangoCookie(secret: string, session: object, compressed = false): string {
  const data = `${compressed ? '.' : ''}${b64url(JSON.stringify(session))}:1rXyZq`;
  const key = digest('sha256', `django.contrib.sessions.backends.signed_cookiessigner${secret}`);
  return `${data}:${b64url(hmac('sha256', key, data))}`;
}

function jwt(secret: string, algorithm: 'HS256' | 'HS384' | 'HS512'): string {
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[algorithm];
  const input = `${b64url(JSON.stringify({ alg: algorithm, typ: 'JWT' }))}.${b64url('{"sub":"admin"}')}`;
  return `${input}.${b64url(hmac(hash, secret, input))}`;
}

/** Rack::Session::Cookie: base64 of the marshalled session, `--`, hex HMAC-SHA1 of that text. */
function rackCookie(secret: string): string {
  const data = Buffer.from('\x04\bI"\ttest\x06:\x06ET', 'latin1').toString('base64');
  return `${data}--${hmac('sha1', secret, data).toString('hex')}`;
}

/** Rails 5.2+ encrypted cookie: AES-256-GCM under PBKDF2-SHA256(secret_key_base, salt, 1000). */
function railsCookie(secret: string): string {
  const key = pbkdf2Sync(secret, 'authenticated encrypted cookie', 1000, 32, 'sha256');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update('{"_rails":{"message":"InRlc3Qi"}}'), cipher.final()]);
  const part = (bytes: Buffer) => encodeURIComponent(bytes.toString('base64'));
  return `${part(data)}--${part(iv)}--${part(cipher.getAuthTag())}`;
}

/** Express cookie-session: keygrip's HMAC-SHA1 of `name=value` in URL-safe base64, written `name=value^sig`. */
function expressCookie(secret: string): string {
  const cookie = `session=${Buffer.from('{"user":"admin"}').toString('base64')}`;
  return `${cookie}^${b64url(hmac('sha1', secret, cookie))}`;
}

/** Laravel: base64 of {iv, value, mac, tag}; AES-256-CBC, mac = hex HMAC-SHA256(key, iv + value). */
function laravelCookie(appKey: string): string {
  const key = Buffer.from(appKey);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const value = Buffer.concat([cipher.update('s:5:"admin";'), cipher.final()]).toString('base64');
  const ivText = iv.toString('base64');
  const mac = hmac('sha256', key, ivText + value).toString('hex');
  const payload = JSON.stringify({ iv: ivText, value, mac, tag: '' });
  return encodeURIComponent(Buffer.from(payload).toString('base64'));
}

/** itsdangerous URLSafeSerializer: default salt "itsdangerous", key = sha1(salt + "signer" + secret). */
function itsdangerousToken(secret: string): string {
  const data = b64url('{"id":1}');
  return `${data}.${b64url(hmac('sha1', digest('sha1', `itsdangeroussigner${secret}`), data))}`;
}

const unsign = (cookie: string) => evaluate('cookie_unsign(cookie)', { cookie });
const failure = (cookie: string) => evaluationFailure(() => unsign(cookie));

describe('cookie_unsign', () => {
  it('gives the leaked key that signed a Flask session cookie', () => {
    expect(unsign(flaskCookie('changeme', { user: 'admin' }))).toBe('changeme');
  });

  it('gives the key of a Django signed-cookie session, compressed or not', () => {
    expect(unsign(djangoCookie('secret', { user: 'admin' }))).toBe('secret');
    expect(unsign(djangoCookie('secret', { user: 'admin' }, true))).toBe('secret');
  });

  it('gives the key of an HS256, HS384 and HS512 JSON Web Token, also URL- or base64-wrapped', () => {
    expect(unsign(jwt('your-secret-key', 'HS256'))).toBe('your-secret-key');
    expect(unsign(jwt('your-secret-key', 'HS384'))).toBe('your-secret-key');
    expect(unsign(jwt('your-secret-key', 'HS512'))).toBe('your-secret-key');
    expect(unsign(Buffer.from(jwt('secret', 'HS256')).toString('base64'))).toBe('secret');
  });

  it('gives the key of a Rack session cookie', () => {
    expect(unsign(rackCookie('super secret'))).toBe('super secret');
  });

  it('finds the secret_key_base of a Rails encrypted cookie: the one under which it decrypts to JSON', () => {
    // PBKDF2's thousand rounds a key make the whole list take seconds: a short list shows the check.
    const keys = parseWordlist(
      ['other', 'changeme', 'third'].map((k) => Buffer.from(k).toString('base64')).join('\n'),
    );
    expect(unsignCookie(railsCookie('changeme'), () => keys)).toEqual({ key: Buffer.from('changeme') });
    expect(unsignCookie(railsCookie(UNKNOWN_KEY), () => keys)).toEqual({
      failure: 'could not unsign cookie',
    });
  });

  it('gives the key of an Express cookie-session cookie written name=value^signature', () => {
    expect(unsign(expressCookie('keyboard cat'))).toBe('keyboard cat');
  });

  it('gives the APP_KEY of a Laravel AES-256-CBC cookie', () => {
    expect(unsign(laravelCookie('zseMzUq8M6oPB5xkPvIWddeepxzseJtN'))).toBe(
      'zseMzUq8M6oPB5xkPvIWddeepxzseJtN',
    );
  });

  it('gives the key of an itsdangerous URL-safe token', () => {
    expect(unsign(itsdangerousToken('changeme'))).toBe('changeme');
  });

  it('fails with "could not unsign cookie" on a cookie of a known format signed with a key not on the list', () => {
    for (const cookie of [
      flaskCookie(UNKNOWN_KEY, { user: 'admin' }),
      djangoCookie(UNKNOWN_KEY, {}),
      jwt(UNKNOWN_KEY, 'HS256'),
      rackCookie(UNKNOWN_KEY),
      expressCookie(UNKNOWN_KEY),
      laravelCookie(UNKNOWN_KEY.slice(0, 32)),
      itsdangerousToken(UNKNOWN_KEY),
    ]) {
      expect(failure(cookie)).toBe('cookie_unsign: could not unsign cookie');
    }
  });

  it('fails with "could not decode cookie" on text of no signed-cookie format', () => {
    expect(failure('garbagegarbagegarbagegarbage')).toBe('cookie_unsign: could not decode cookie');
    expect(failure('a.b.c')).toBe('cookie_unsign: could not decode cookie');
    expect(failure('')).toBe('cookie_unsign: could not decode cookie');
  });

  it('is told a signature from its length: a 31-byte one is of no format', () => {
    const input = `${b64url('{"alg":"HS256"}')}.${b64url('{}')}`;
    const short = hmac('sha256', 'secret', input).subarray(1);
    expect(failure(`${input}.${b64url(short)}`)).toBe('cookie_unsign: could not decode cookie');
  });

  it('returns the first key of the list that verifies, in the list order', () => {
    const keys = parseWordlist(['b3RoZXI=', '', Buffer.from('k').toString('base64')].join('\n'));
    expect(unsignCookie(jwt('k', 'HS256'), () => keys)).toEqual({ key: Buffer.from('k') });
    expect(unsignCookie(jwt('z', 'HS256'), () => keys)).toEqual({ failure: 'could not unsign cookie' });
  });

  it('reads nuclei’s 38,920 keys, each base64 on its line', () => {
    expect(signingKeys()).toHaveLength(38_920);
    expect(() => parseWordlist('Y2hhbmdlbWU=\nnot base64!')).toThrow(
      'line 2 of the signing-key list is not base64',
    );
  });
});
