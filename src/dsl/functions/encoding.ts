/** Encoding, hashing and cipher helpers of projectdiscovery/dsl, over the bytes a text stands for. */
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { decodeHTML } from 'entities';
import murmurhash3 from 'murmurhash3js-revisited';
import { bytesToText, textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import { type DslValue, toGoDisplay } from '../value.js';
import { arg, fixed, type HelperFunction, ranged, textArg } from './helper.js';

function bytesArg(args: readonly DslValue[], index: number): Buffer {
  return textToBytes(textArg(args, index));
}

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` is escaped; space becomes `+`. */
export function queryEscape(text: string): string {
  let out = '';
  for (const byte of textToBytes(text)) {
    const char = String.fromCharCode(byte);
    if (/^[A-Za-z0-9\-_.~]$/.test(char)) out += char;
    else if (byte === 0x20) out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url.QueryUnescape: `+` is a space and every `%` must start a two-digit hex escape. */
export function queryUnescape(text: string): string {
  const bytes = textToBytes(text);
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte === 0x25) {
      const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw argumentError('url_decode', 'invalid URL escape');
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else out.push(byte === 0x2b ? 0x20 : byte);
  }
  return bytesToText(Buffer.from(out));
}

/** Go's encoding/hex DecodeString. */
function hexDecode(text: string): string {
  if (text.length % 2 !== 0) throw argumentError('hex_decode', 'odd length hex string');
  if (!/^[0-9a-fA-F]*$/.test(text)) throw argumentError('hex_decode', 'invalid hex character');
  return bytesToText(Buffer.from(text, 'hex'));
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Go's base64.StdEncoding.DecodeString: padded standard alphabet; CR and LF are ignored. */
function base64Decode(text: string): string {
  const compact = text.replace(/[\r\n]/g, '');
  if (!STRICT_BASE64.test(compact)) throw argumentError('base64_decode', 'illegal base64 data');
  return bytesToText(Buffer.from(compact, 'base64'));
}

/** Python's base64.encodebytes as the dsl library mimics it: 76-character lines, each ending in "\n". */
function base64Python(bytes: Buffer): string {
  const encoded = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return `${lines.join('\n')}\n`;
}

/** Go's html.EscapeString. */
function htmlEscape(text: string): string {
  return text.replace(/[&'<>"]/g, (char) => HTML_ESCAPES[char] as string);
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
};

function digest(algorithm: string): HelperFunction['call'] {
  return (args) => createHash(algorithm).update(bytesArg(args, 0)).digest('hex');
}

const HMAC_ALGORITHMS: Readonly<Record<string, string>> = {
  sha1: 'sha1',
  'sha-1': 'sha1',
  sha256: 'sha256',
  'sha-256': 'sha256',
  sha512: 'sha512',
  'sha-512': 'sha512',
};

function hmac(args: readonly DslValue[]): string {
  const algorithm = HMAC_ALGORITHMS[textArg(args, 0)];
  if (algorithm === undefined)
    throw argumentError('hmac', 'unsupported hash algorithm (use sha1, sha256 or sha512)');
  return createHmac(algorithm, bytesArg(args, 2)).update(bytesArg(args, 1)).digest('hex');
}

/** MurmurHash3 (x86, 32-bit, seed 0) of Go's `fmt.Sprint(value)`, as a signed decimal (Shodan's favicon hash). */
function mmh3(args: readonly DslValue[]): string {
  const hash = murmurhash3.x86.hash32(textToBytes(toGoDisplay(arg(args, 0))), 0);
  return String(hash | 0);
}

function aesKeyBits(functionName: string, key: Buffer): number {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) {
    throw argumentError(functionName, 'the key must be 16, 24 or 32 bytes long');
  }
  return key.length * 8;
}

/** AES-CBC with PKCS#7 padding; the result is the raw ciphertext. */
function aesCbc(args: readonly DslValue[]): string {
  const key = bytesArg(args, 1);
  const iv = bytesArg(args, 2);
  const bits = aesKeyBits('aes_cbc', key);
  if (iv.length !== 16) throw argumentError('aes_cbc', 'the IV must be 16 bytes long');
  const cipher = createCipheriv(`aes-${bits}-cbc`, key, iv);
  return bytesToText(Buffer.concat([cipher.update(bytesArg(args, 0)), cipher.final()]));
}

/** AES-GCM with a random 12-byte nonce; the result is nonce, ciphertext and tag, as Go's Seal(nonce, …). */
function aesGcm(args: readonly DslValue[]): string {
  const key = bytesArg(args, 0);
  const bits = aesKeyBits('aes_gcm', key);
  const nonce = randomBytes(12);
  const cipher = createCipheriv(`aes-${bits}-gcm` as 'aes-256-gcm', key, nonce);
  const sealed = Buffer.concat([cipher.update(bytesArg(args, 1)), cipher.final()]);
  return bytesToText(Buffer.concat([nonce, sealed, cipher.getAuthTag()]));
}

function xor(args: readonly DslValue[]): string {
  const inputs = args.map((_, index) => bytesArg(args, index));
  const length = (inputs[0] as Buffer).length;
  if (inputs.some((input) => input.length !== length)) {
    throw argumentError('xor', 'all arguments must have the same length');
  }
  const out = Buffer.alloc(length);
  for (const input of inputs)
    for (let i = 0; i < length; i++) out[i] = (out[i] as number) ^ (input[i] as number);
  return bytesToText(out);
}

export const encodingFunctions: readonly HelperFunction[] = [
  fixed('base64', 1, (args) => bytesArg(args, 0).toString('base64')),
  fixed('base64_decode', 1, (args) => base64Decode(textArg(args, 0))),
  fixed('base64_py', 1, (args) => base64Python(bytesArg(args, 0))),
  fixed('url_encode', 1, (args) => queryEscape(textArg(args, 0))),
  fixed('url_decode', 1, (args) => queryUnescape(textArg(args, 0))),
  fixed('hex_encode', 1, (args) => bytesArg(args, 0).toString('hex')),
  fixed('hex_decode', 1, (args) => hexDecode(textArg(args, 0))),
  fixed('html_escape', 1, (args) => htmlEscape(textArg(args, 0))),
  fixed('html_unescape', 1, (args) => decodeHTML(textArg(args, 0))),
  fixed('md5', 1, digest('md5')),
  fixed('sha1', 1, digest('sha1')),
  fixed('sha256', 1, digest('sha256')),
  fixed('sha512', 1, digest('sha512')),
  fixed('mmh3', 1, mmh3),
  fixed('hmac', 3, hmac),
  fixed('aes_cbc', 3, aesCbc),
  fixed('aes_gcm', 2, aesGcm),
  ranged('xor', 2, Number.POSITIVE_INFINITY, xor),
];
