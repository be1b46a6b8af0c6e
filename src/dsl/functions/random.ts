/** Random helpers of projectdiscovery/dsl, drawing from the operating system's secure generator. */

import { randomBytes, randomInt } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import type { DslValue } from '../value.js';
import { checkResultLength, type HelperFunction, numberArg, ranged, str, textArg } from './helper.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const NUMBERS = '1234567890';
const MAX_INT32 = 2 ** 31 - 1;

function lengthArg(name: string, args: readonly DslValue[]): number {
  const length = Math.trunc(numberArg(name, args, 0));
  if (!(length >= 0)) throw argumentError(name, 'the length must not be negative');
  checkResultLength(name, length);
  return length;
}

/** The dsl library's RandSeq: `length` bytes drawn from `alphabet`, each read back as a character. */
function randomSequence(name: string, alphabet: string, length: number): string {
  const bytes = textToBytes(alphabet);
  if (bytes.length === 0 && length > 0) throw argumentError(name, 'no characters left to choose from');
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(bytes[randomInt(bytes.length)] as number);
  return out;
}

/** A caller's character set, or the default when it is blank. */
function charsetArg(args: readonly DslValue[], index: number, fallback: string): string {
  if (args.length <= index) return fallback;
  const charset = str(args[index] as DslValue);
  return charset.trim() === '' ? fallback : charset;
}

/** The dsl library's TrimAll: `alphabet` without any character of `bad`. */
function without(alphabet: string, args: readonly DslValue[], index: number): string {
  if (args.length <= index) return alphabet;
  const bad = new Set(textArg(args, index));
  return [...alphabet].filter((char) => !bad.has(char)).join('');
}

function randomIntIn(args: readonly DslValue[]): number {
  const min = args.length > 0 ? Math.trunc(numberArg('rand_int', args, 0)) : 0;
  const max = args.length > 1 ? Math.trunc(numberArg('rand_int', args, 1)) : MAX_INT32;
  if (max - min <= 0) throw argumentError('rand_int', 'the maximum must be greater than the minimum');
  if (max - min > 2 ** 48 - 1) throw argumentError('rand_int', 'the range is too large');
  return min + randomInt(max - min);
}

function randomIp(args: readonly DslValue[]): string {
  const cidr = str(args[randomInt(args.length)] as DslValue);
  const [address = '', bitsText = '', extra] = cidr.split('/');
  const bits = Number(bitsText);
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  const width = family === 4 ? 32 : 128;
  if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(bitsText) || bits > width) {
    throw argumentError('rand_ip', 'the argument must be a CIDR such as 10.0.0.0/8 or 2001:db8::/32');
  }
  const base = family === 4 ? ipv4ToBigInt(address) : ipv6ToBigInt(address);
  const hostBits = BigInt(width - bits);
  const network = (base >> hostBits) << hostBits;
  if (hostBits === 0n) return family === 4 ? bigIntToIpv4(network) : bigIntToIpv6(network);
  let host = 0n;
  // Draw a host part other than zero (the network address itself), as the dsl library tries to.
  for (let attempt = 0; attempt < 255 && host === 0n; attempt++) {
    host = BigInt(`0x${randomBytes(16).toString('hex')}`) & ((1n << hostBits) - 1n);
  }
  const ip = network | host;
  return family === 4 ? bigIntToIpv4(ip) : bigIntToIpv6(ip);
}

function ipv4ToBigInt(address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function bigIntToIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function ipv6ToBigInt(address: string): bigint {
  let text = address;
  const embedded = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (embedded !== null) {
    const v4 = ipv4ToBigInt(embedded[1] as string);
    text = `${text.slice(0, embedded.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [
    ...headParts,
    ...new Array<string>(tail === undefined ? 0 : missing).fill('0'),
    ...tailParts,
  ];
  return parts.reduce((value, part) => (value << 16n) | BigInt(`0x${part}`), 0n);
}

/** RFC 5952 text, as Go's net.IP.String prints IPv6. */
function bigIntToIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export const randomFunctions: readonly HelperFunction[] = [
  ranged('rand_base', 1, 3, (args) =>
    randomSequence('rand_base', charsetArg(args, 1, LETTERS + NUMBERS), lengthArg('rand_base', args)),
  ),
  ranged('rand_char', 0, 1, (args) => randomSequence('rand_char', charsetArg(args, 0, LETTERS + NUMBERS), 1)),
  ranged('rand_text_alphanumeric', 1, 2, (args) =>
    randomSequence(
      'rand_text_alphanumeric',
      without(LETTERS + NUMBERS, args, 1),
      lengthArg('rand_text_alphanumeric', args),
    ),
  ),
  ranged('rand_text_alpha', 1, 2, (args) =>
    randomSequence('rand_text_alpha', without(LETTERS, args, 1), lengthArg('rand_text_alpha', args)),
  ),
  ranged('rand_text_numeric', 1, 2, (args) =>
    randomSequence('rand_text_numeric', without(NUMBERS, args, 1), lengthArg('rand_text_numeric', args)),
  ),
  ranged('rand_int', 0, 2, randomIntIn, { integer: true }),
  ranged('rand_ip', 1, Number.POSITIVE_INFINITY, randomIp),
];
