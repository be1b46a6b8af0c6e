/**
 * The signed-cookie formats `cookie_unsign` recognises, as nuclei's cookiemonster (v1.6.0) reads them.
 * Each format parses a cookie (a byte string) into a check of one candidate signing key, or refuses it.
 * The HMAC hash is the one whose digest length the signature has (SHA-1, -256, -384 or -512).
 */
import { createDecipheriv, createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { bytesOf, hexBytes, queryUnescape, rawUrlBase64, stdBase64 } from './cookie-encoding.js';

/** True when `key` signed the cookie. */
export type KeyCheck = (key: Buffer) => boolean;

export interface CookieFormat {
  readonly name: string;
  /** The check of a key against this cookie, or undefined when the cookie is not of this format. */
  parse(cookie: string): KeyCheck | undefined;
}

const MIN_LENGTH = 10;

const HASH_BY_DIGEST_LENGTH: ReadonlyMap<number, string> = new Map([
  [20, 'sha1'],
  [32, 'sha256'],
  [48, 'sha384'],
  [64, 'sha512'],
]);

/** The signature and the hash its length names, or undefined for any other length. */
function signature(bytes: Buffer | undefined): { bytes: Buffer; hash: string } | undefined {
  const hash = bytes === undefined ? undefined : HASH_BY_DIGEST_LENGTH.get(bytes.length);
  return hash === undefined || bytes === undefined ? undefined : { bytes, hash };
}

const hmac = (hash: string, key: Buffer | string, data: Buffer | string) =>
  createHmac(hash, key).update(data).digest();

/** A leading dot marks a zlib-compressed payload (Django, Flask, itsdangerous); it is signed too. */
function splitCompressed(cookie: string): { compressed: boolean; rest: string } {
  return cookie.startsWith('.')
    ? { compressed: true, rest: cookie.slice(1) }
    : { compressed: false, rest: cookie };
}

/** Django's signed_cookies session: `data:timestamp:signature`, key derived as hash(salt + secret). */
const django: CookieFormat = {
  name: 'django',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const { compressed, rest } = splitCompressed(cookie);
    const parts = rest.split(':');
    if (parts.length !== 3) return undefined;
    const sig = signature(rawUrlBase64(parts[2] as string));
    if (sig === undefined) return undefined;
    const signed = bytesOf(`${compressed ? '.' : ''}${parts[0]}:${parts[1]}`);
    const salt = 'django.contrib.sessions.backends.signed_cookiessigner';
    return (key) =>
      hmac(sig.hash, createHash(sig.hash).update(salt).update(key).digest(), signed).equals(sig.bytes);
  },
};

/** Flask's session (itsdangerous TimestampSigner, salt "cookie-session", HMAC key derivation). */
const flask: CookieFormat = {
  name: 'flask',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const { compressed, rest } = splitCompressed(cookie);
    const parts = rest.split('.');
    if (parts.length !== 3) return undefined;
    const timestamp = rawUrlBase64(parts[1] as string);
    if (timestamp === undefined || timestamp.length > 8) return undefined;
    const sig = signature(rawUrlBase64(parts[2] as string));
    if (sig === undefined) return undefined;
    const signed = bytesOf(`${compressed ? '.' : ''}${parts[0]}.${parts[1]}`);
    return (key) => hmac(sig.hash, hmac(sig.hash, key, 'cookie-session'), signed).equals(sig.bytes);
  },
};

/** A JSON Web Token signed with HMAC (HS256, HS384, HS512, and SHA-1). */
const jwt: CookieFormat = {
  name: 'jwt',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const parts = cookie.split('.');
    if (parts.length !== 3) return undefined;
    const sig = signature(rawUrlBase64(parts[2] as string));
    if (sig === undefined) return undefined;
    const signed = bytesOf(`${parts[0]}.${parts[1]}`);
    return (key) => hmac(sig.hash, key, signed).equals(sig.bytes);
  },
};

/** Rack/Rails: `data--hexsignature`, or Rails' encrypted `data--iv--tag` (AES-256-GCM). */
const rack: CookieFormat = {
  name: 'rack',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const parts = cookie.split('--');
    if (parts.length === 2) {
      const sig = signature(hexBytes(parts[1] as string));
      if (sig === undefined) return undefined;
      const signed = bytesOf(parts[0] as string);
      return (key) => hmac(sig.hash, key, signed).equals(sig.bytes);
    }
    return parts.length === 3 ? railsEncrypted(parts as [string, string, string]) : undefined;
  },
};

const unescapedBase64 = (text: string) => {
  const unescaped = queryUnescape(text);
  return unescaped === undefined ? undefined : stdBase64(unescaped);
};

/**
 * Rails 5.2+ encrypted cookies: the key is PBKDF2-SHA256(secret, "authenticated encrypted cookie",
 * 1000 rounds); a key is right when the payload decrypts, its tag checks and the plaintext is JSON.
 */
function railsEncrypted([data, iv, tag]: [string, string, string]): KeyCheck | undefined {
  const ciphertext = unescapedBase64(data);
  const nonce = unescapedBase64(iv);
  const authTag = unescapedBase64(tag);
  if (ciphertext === undefined || nonce === undefined || authTag === undefined) return undefined;
  // Go's GCM takes the last 16 bytes of ciphertext‖tag as the tag, and needs a 12-byte nonce.
  const sealed = Buffer.concat([ciphertext, authTag]);
  if (nonce.length !== 12 || sealed.length < 16) return () => false;
  const body = sealed.subarray(0, sealed.length - 16);
  const gcmTag = sealed.subarray(sealed.length - 16);
  return (key) => {
    const decipher = createDecipheriv('aes-256-gcm', railsKey(key), nonce);
    decipher.setAuthTag(gcmTag);
    try {
      const plaintext = Buffer.concat([decipher.update(body), decipher.final()]);
      return isJson(plaintext);
    } catch {
      return false;
    }
  };
}

/** PBKDF2 costs a thousand rounds a key: each key's is derived once, while the key is held. */
const railsKeys = new WeakMap<Buffer, Buffer>();

function railsKey(key: Buffer): Buffer {
  let derived = railsKeys.get(key);
  if (derived === undefined) {
    derived = pbkdf2Sync(key, 'authenticated encrypted cookie', 1000, 32, 'sha256');
    railsKeys.set(key, derived);
  }
  return derived;
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/**
 * Express's cookie-session: the value and its `.sig` cookie, written `name=value^signature` (the
 * signature is over `name=value`).
 */
const express: CookieFormat = {
  name: 'express',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const parts = cookie.split('^');
    if (parts.length !== 2) return undefined;
    const sig = signature(rawUrlBase64(parts[1] as string));
    if (sig === undefined) return undefined;
    const signed = bytesOf(parts[0] as string);
    return (key) => hmac(sig.hash, key, signed).equals(sig.bytes);
  },
};

interface LaravelPayload {
  iv: string;
  value: string;
  mac: string;
}

/**
 * Laravel's encrypted cookie: base64 of `{"iv","value","mac","tag"}`; with AES-CBC the MAC is
 * HMAC-SHA256(APP_KEY, iv + value) in hex (GCM has no MAC to check, and is not recognised).
 */
const laravel: CookieFormat = {
  name: 'laravel',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const json = unescapedBase64(cookie);
    const payload = json === undefined ? undefined : laravelPayload(json.toString('latin1'));
    if (payload === undefined) return undefined;
    const iv = stdBase64(payload.iv);
    const mac = hexBytes(payload.mac);
    if (iv === undefined || stdBase64(payload.value) === undefined || mac === undefined) return undefined;
    if ((iv.length !== 8 && iv.length !== 16) || payload.mac.length !== 64) return undefined;
    const signed = payload.iv + payload.value;
    return (key) => hmac('sha256', key, signed).equals(mac);
  },
};

const LARAVEL_FIELDS = ['iv', 'value', 'mac', 'tag'] as const;

/** Go's json.Unmarshal into the payload struct: field names match case-insensitively, values are strings. */
function laravelPayload(json: string): LaravelPayload | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const payload = { iv: '', value: '', mac: '', tag: '' };
  if (parsed === null) return payload;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const [name, value] of Object.entries(parsed)) {
    const field = LARAVEL_FIELDS.find((f) => f === name.toLowerCase());
    if (field === undefined || value === null) continue;
    if (typeof value !== 'string') return undefined;
    payload[field] = value;
  }
  return payload;
}

/** itsdangerous' URLSafe(Timed)Serializer with its default salt: `data[.timestamp].signature`. */
const itsdangerous: CookieFormat = {
  name: 'itsdangerous',
  parse(cookie) {
    if (cookie.length < MIN_LENGTH) return undefined;
    const { compressed, rest } = splitCompressed(cookie);
    const parts = rest.split('.');
    if (parts.length !== 2 && parts.length !== 3) return undefined;
    const [data, timestampText, signatureText] = parts.length === 2 ? [parts[0], '', parts[1]] : parts;
    const timestamp = rawUrlBase64(timestampText as string);
    if (timestamp === undefined || timestamp.length > 8) return undefined;
    const sig = signature(rawUrlBase64(signatureText as string));
    if (sig === undefined) return undefined;
    const payload = timestamp.length > 0 ? `${data}.${timestampText}` : (data as string);
    const signed = bytesOf(`${compressed ? '.' : ''}${payload}`);
    return (key) =>
      hmac(sig.hash, createHash(sig.hash).update('itsdangeroussigner').update(key).digest(), signed).equals(
        sig.bytes,
      );
  },
};

/** In cookiemonster's order. */
export const COOKIE_FORMATS: readonly CookieFormat[] = [
  django,
  flask,
  jwt,
  rack,
  express,
  laravel,
  itsdangerous,
];
