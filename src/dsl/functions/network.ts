/** projectdiscovery/dsl's helpers about addresses: `ip_format` (mapcidr's notations of an IP address), `jarm`. */
import { isIPv4, isIPv6 } from 'node:net';
import { argumentError } from '../errors.js';
import { fixed, type HelperFunction, textArg } from './helper.js';
import { jarm } from './jarm.js';

/** Go's `net.SplitHostPort` with a numeric port: `host:443`, `[::1]:443`. */
function hostAndPort(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65535) {
    throw argumentError('jarm', `takes "host:port", got ${JSON.stringify(text)}`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

/** The 16 bytes of an IP address as Go's `net.ParseIP` holds it (IPv4 mapped into IPv6). */
function ipBytes(ip: string): Uint8Array | undefined {
  if (isIPv4(ip))
    return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip.split('.').map(Number)]);
  if (!isIPv6(ip)) return undefined;
  const [head = '', tail] = ip.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const expand = (list: string[]): number[] =>
    list.flatMap((group) => {
      if (isIPv4(group)) return group.split('.').map(Number);
      const value = Number.parseInt(group, 16);
      return [value >> 8, value & 0xff];
    });
  const front = expand(groups(head));
  const back = tail === undefined ? [] : expand(groups(tail));
  return Uint8Array.from([...front, ...new Array(16 - front.length - back.length).fill(0), ...back]);
}

const isMapped = (bytes: Uint8Array) =>
  bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/** Go's `net.IP.String()`: dotted quad for IPv4, the shortest IPv6 form otherwise. */
function ipText(bytes: Uint8Array): string {
  if (isMapped(bytes)) return [...bytes.subarray(12)].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/** Go's `%#o` of a byte: a leading 0 unless the value is 0. */
const octal = (value: number) => (value === 0 ? '0' : `0${value.toString(8)}`);
/** Go's `%#x` of a byte. */
const hexOf = (value: number) => `0x${value.toString(16)}`;
const integerOf = (bytes: Uint8Array) =>
  (isMapped(bytes) ? bytes.subarray(12) : bytes).reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);

type Notation = (ip: string, bytes: Uint8Array) => string;

/** mapcidr's `AlterIP` notations 1 to 11, the first form of each (zero padding of 3, as nuclei asks). */
const NOTATIONS: Record<number, Notation> = {
  1: (_ip, bytes) => ipText(bytes),
  2: (_ip, bytes) =>
    ipText(bytes)
      .replace(/0+\./g, '')
      .replace(/\.[0^]+$/m, ''),
  3: (_ip, b) =>
    `${octal(b[12] ?? 0).padStart(4, '0')}.${octal(b[13] ?? 0)}.${octal(b[14] ?? 0)}.${octal(b[15] ?? 0)}`,
  4: (_ip, b) => [...b.subarray(12)].map(hexOf).join('.'),
  5: (_ip, bytes) => integerOf(bytes).toString(),
  6: (_ip, bytes) => integerOf(bytes).toString(2),
  7: (_ip, b) => `${hexOf(b[12] ?? 0)}.${b[13] ?? 0}.${octal(b[14] ?? 0)}.${hexOf(b[15] ?? 0)}`,
  8: (_ip, bytes) => {
    if (!isMapped(bytes)) return ipText(bytes);
    const hex = (i: number) => (bytes[i] ?? 0).toString(16).padStart(2, '0');
    return `::ffff:${hex(12)}${hex(13)}:${hex(14)}${hex(15)}`;
  },
  9: (ip) =>
    [...Buffer.from(ip, 'utf8')]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  10: (_ip, bytes) =>
    ipv4Parts(bytes, 10)
      .map((part) => String(part).padStart(3, '0'))
      .join('.'),
  11: (_ip, bytes) => {
    const [a, b, c, d] = ipv4Parts(bytes, 11);
    if (d !== 0)
      throw argumentError('ip_format', 'format 11 (overflow) takes an IPv4 address whose last part is 0');
    return `${a}.${b}.${(c ?? 0) + 255}`;
  },
};

function ipv4Parts(bytes: Uint8Array, format: number): number[] {
  if (!isMapped(bytes)) throw argumentError('ip_format', `format ${format} takes an IPv4 address`);
  return [...bytes.subarray(12)];
}

export const networkFunctions: readonly HelperFunction[] = [
  fixed('jarm', 1, (args) => {
    const { host, port } = hostAndPort(textArg(args, 0));
    return jarm(host, port);
  }),
  fixed('ip_format', 2, (args) => {
    const ip = textArg(args, 0);
    const formatText = textArg(args, 1);
    const format = /^[-+]?\d+$/.test(formatText) ? Number(formatText) : Number.NaN;
    const notation = NOTATIONS[format];
    if (notation === undefined)
      throw argumentError('ip_format', 'invalid format, format must be in range 1-11');
    const bytes = ipBytes(ip);
    if (bytes === undefined) throw argumentError('ip_format', `${JSON.stringify(ip)} is not an IP address`);
    return notation(ip, bytes);
  }),
];
