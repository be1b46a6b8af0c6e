/**
 * JARM, the active TLS server fingerprint (salesforce/jarm), as nuclei's `jarm("host:port")` gives
 * it: ten hand-built ClientHello messages over plain TCP, each answer reduced to the chosen cipher,
 * version, ALPN and extension list, and those reduced to 62 hex characters (30 of cipher index and
 * version per probe, then 32 of a SHA-256 over the ALPNs and extensions).
 *
 * The probes run on a worker thread while the expression waits for them (see blocking.ts).
 */
import { createHash } from 'node:crypto';
import { runBlocking } from './blocking.js';

/** The hash of a server that answered no probe. */
export const ZERO_JARM = '0'.repeat(62);

type Version = 'tls1.1' | 'tls1.2' | 'tls1.3';

interface Probe {
  readonly version: Version;
  readonly ciphers: 'all' | 'no-tls1.3';
  readonly cipherOrder: Order;
  readonly grease: boolean;
  readonly alpn: 'all' | 'rare' | 'none';
  readonly supportedVersions: 'tls1.2' | 'tls1.3' | 'none';
  readonly extensionOrder: Order;
}

type Order = 'forward' | 'reverse' | 'top-half' | 'bottom-half' | 'middle-out';

/** The ten probes, in JARM's order. */
export const PROBES: readonly Probe[] = [
  probe('tls1.2', 'all', 'forward', false, 'all', 'tls1.2', 'reverse'),
  probe('tls1.2', 'all', 'reverse', false, 'all', 'tls1.2', 'forward'),
  probe('tls1.2', 'all', 'top-half', false, 'none', 'none', 'forward'),
  probe('tls1.2', 'all', 'bottom-half', false, 'rare', 'none', 'forward'),
  probe('tls1.2', 'all', 'middle-out', true, 'rare', 'none', 'reverse'),
  probe('tls1.1', 'all', 'forward', false, 'all', 'none', 'forward'),
  probe('tls1.3', 'all', 'forward', false, 'all', 'tls1.3', 'reverse'),
  probe('tls1.3', 'all', 'reverse', false, 'all', 'tls1.3', 'forward'),
  probe('tls1.3', 'no-tls1.3', 'forward', false, 'all', 'tls1.3', 'forward'),
  probe('tls1.3', 'all', 'middle-out', true, 'all', 'tls1.3', 'reverse'),
];

function probe(
  version: Version,
  ciphers: Probe['ciphers'],
  cipherOrder: Order,
  grease: boolean,
  alpn: Probe['alpn'],
  supportedVersions: Probe['supportedVersions'],
  extensionOrder: Order,
): Probe {
  return { version, ciphers, cipherOrder, grease, alpn, supportedVersions, extensionOrder };
}

/** Every cipher suite JARM offers, in its offering order; TLS 1.3 suites start with 0x13. */
const OFFERED = [
  0x0016, 0x0033, 0x0067, 0xc09e, 0xc0a2, 0x009e, 0x0039, 0x006b, 0xc09f, 0xc0a3, 0x009f, 0x0045, 0x00be,
  0x0088, 0x00c4, 0x009a, 0xc008, 0xc009, 0xc023, 0xc0ac, 0xc0ae, 0xc02b, 0xc00a, 0xc024, 0xc0ad, 0xc0af,
  0xc02c, 0xc072, 0xc073, 0xcca9, 0x1302, 0x1301, 0xcc14, 0xc007, 0xc012, 0xc013, 0xc027, 0xc02f, 0xc014,
  0xc028, 0xc030, 0xc060, 0xc061, 0xc076, 0xc077, 0xcca8, 0x1305, 0x1304, 0x1303, 0xcc13, 0xc011, 0x000a,
  0x002f, 0x003c, 0xc09c, 0xc0a0, 0x009c, 0x0035, 0x003d, 0xc09d, 0xc0a1, 0x009d, 0x0041, 0x00ba, 0x0084,
  0x00c0, 0x0007, 0x0004, 0x0005,
];

/** The order that numbers a chosen cipher in the hash (its position, from 1; 0 when none). */
const isTls13 = (suite: number) => (suite >> 8 === 0x13 ? 1 : 0);
const NUMBERED = [...OFFERED].sort((a, b) => isTls13(a) - isTls13(b) || a - b);

const ALPN_ALL = ['http/0.9', 'http/1.0', 'http/1.1', 'spdy/1', 'spdy/2', 'spdy/3', 'h2', 'h2c', 'hq'];
const ALPN_RARE = ['http/0.9', 'http/1.0', 'spdy/1', 'spdy/2', 'spdy/3', 'h2c', 'hq'];

/** Reorders a list as JARM's probes ask. */
export function reorder<T>(items: readonly T[], order: Order): T[] {
  const n = items.length;
  const half = Math.floor(n / 2);
  switch (order) {
    case 'forward':
      return [...items];
    case 'reverse':
      return [...items].reverse();
    case 'bottom-half':
      return items.slice(n % 2 === 1 ? half + 1 : half);
    case 'top-half':
      return [
        ...(n % 2 === 1 ? [items[half] as T] : []),
        ...reorder(reorder(items, 'reverse'), 'bottom-half'),
      ];
    case 'middle-out': {
      const out: T[] = n % 2 === 1 ? [items[half] as T] : [];
      for (let i = 1; i <= half; i++) {
        if (n % 2 === 1) out.push(items[half + i] as T, items[half - i] as T);
        else out.push(items[half - 1 + i] as T, items[half - i] as T);
      }
      return out;
    }
  }
}

const u16 = (value: number) => [(value >> 8) & 0xff, value & 0xff];
/** A GREASE value (RFC 8701): 0x?a?a, the same nibble twice. */
const grease = () => {
  const byte = 0x0a + (Math.floor(Math.random() * 16) << 4);
  return [byte, byte];
};
const randomBytes = (count: number) => Array.from({ length: count }, () => Math.floor(Math.random() * 256));

/** The ClientHello record of a probe, for `hostname`. */
export function clientHello(spec: Probe, hostname: string): Buffer {
  const recordVersion = spec.version === 'tls1.1' ? [3, 2] : spec.version === 'tls1.2' ? [3, 3] : [3, 1];
  const helloVersion = spec.version === 'tls1.1' ? [3, 2] : [3, 3];
  const suites = reorder(
    spec.ciphers === 'all' ? OFFERED : OFFERED.filter((suite) => suite >> 8 !== 0x13),
    spec.cipherOrder,
  ).flatMap(u16);
  const cipherBytes = spec.grease ? [...grease(), ...suites] : suites;
  const hello = [
    ...helloVersion,
    ...randomBytes(32),
    32,
    ...randomBytes(32),
    ...u16(cipherBytes.length),
    ...cipherBytes,
    1,
    0,
    ...extensions(spec, hostname),
  ];
  const handshake = [1, 0, ...u16(hello.length), ...hello];
  return Buffer.from([0x16, ...recordVersion, ...u16(handshake.length), ...handshake]);
}

function extensions(spec: Probe, hostname: string): number[] {
  const name = [...Buffer.from(hostname, 'utf8')];
  const all = [
    ...(spec.grease ? [...grease(), 0, 0] : []),
    ...[0, 0, ...u16(name.length + 5), ...u16(name.length + 3), 0, ...u16(name.length), ...name],
    ...[0x00, 0x17, 0, 0],
    ...[0x00, 0x01, 0, 1, 1],
    ...[0xff, 0x01, 0, 1, 0],
    ...[0x00, 0x0a, 0, 10, 0, 8, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18, 0x00, 0x19],
    ...[0x00, 0x0b, 0, 2, 1, 0],
    ...[0x00, 0x23, 0, 0],
    ...alpnExtension(spec),
    ...[0x00, 0x0d, 0, 0x14, 0, 0x12, 4, 3, 8, 4, 4, 1, 5, 3, 8, 5, 5, 1, 8, 6, 6, 1, 2, 1],
    ...keyShare(spec.grease),
    ...[0x00, 0x2d, 0, 2, 1, 1],
    ...(spec.version === 'tls1.3' || spec.supportedVersions === 'tls1.2' ? supportedVersions(spec) : []),
  ];
  return [...u16(all.length), ...all];
}

/** The ALPN extension: every protocol (or all but h2 and http/1.1), in the probe's extension order. */
function alpnExtension(spec: Probe): number[] {
  const names = reorder(spec.alpn === 'rare' ? ALPN_RARE : ALPN_ALL, spec.extensionOrder);
  const list = names.flatMap((protocol) => [protocol.length, ...Buffer.from(protocol, 'latin1')]);
  return [0x00, 0x10, ...u16(list.length + 2), ...u16(list.length), ...list];
}

function keyShare(withGrease: boolean): number[] {
  const share = [...(withGrease ? [...grease(), 0, 1, 0] : []), 0x00, 0x1d, 0, 32, ...randomBytes(32)];
  return [0x00, 0x33, ...u16(share.length + 2), ...u16(share.length), ...share];
}

function supportedVersions(spec: Probe): number[] {
  const versions =
    spec.supportedVersions === 'tls1.2' ? [0x0301, 0x0302, 0x0303] : [0x0301, 0x0302, 0x0303, 0x0304];
  const list = [...(spec.grease ? grease() : []), ...reorder(versions, spec.extensionOrder).flatMap(u16)];
  return [0x00, 0x2b, ...u16(list.length + 1), list.length, ...list];
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const NO_ANSWER = '|||';

/** What one answer says: `cipher|version|alpn|extensions`, or `|||` for no ServerHello. */
export function readServerHello(data: Uint8Array): string {
  // a handshake record holding a ServerHello, long enough to name its cipher
  if (data.length < 44 || data[0] !== 0x16 || data[5] !== 2) return NO_ANSWER;
  const sessionIdLength = data[43] ?? 0;
  const cipherAt = sessionIdLength + 44;
  if (data.length < cipherAt + 2) return NO_ANSWER;
  const recordLength = ((data[3] ?? 0) << 8) | (data[4] ?? 0);
  const cipher = hex(data.subarray(cipherAt, cipherAt + 2));
  const version = hex(data.subarray(9, 11));
  return `${cipher}|${version}|${extensionInfo(data, sessionIdLength, recordLength)}`;
}

/** `alpn|type-type-…` of a ServerHello's extensions, read at JARM's offsets. */
function extensionInfo(data: Uint8Array, offset: number, recordLength: number): string {
  if (data.length < 85 || data.length < offset + 53) return '|';
  if (data[offset + 47] === 11 || offset + 42 >= recordLength) return '|';
  const at = (i: number, bytes: number[]) => bytes.every((b, k) => data[i + k] === b);
  if (at(offset + 50, [0x0e, 0xac, 0x0b]) || at(82, [0x0f, 0xf0, 0x0b])) return '|';
  const read16 = (i: number) => ((data[i] ?? 0) << 8) | (data[i + 1] ?? 0);
  let cursor = offset + 49;
  const end = read16(offset + 47) + cursor - 1;
  const types: string[] = [];
  let alpn: string | undefined;
  while (cursor < end && data.length >= cursor + 4) {
    const type = hex(data.subarray(cursor, cursor + 2));
    const length = read16(cursor + 2);
    // JARM lists a type even when its value runs past what was read
    types.push(type);
    if (data.length < cursor + 4 + length) break;
    const value = data.subarray(cursor + 4, cursor + 4 + length);
    if (type === '0010' && alpn === undefined && value.length >= 4)
      alpn = Buffer.from(value.subarray(3)).toString('latin1');
    cursor += length + 4;
  }
  return `${alpn ?? ''}|${types.join('-')}`;
}

/** The 62-character JARM hash of the ten answers (each as {@link readServerHello} gives it). */
export function jarmHash(answers: readonly string[]): string {
  if (answers.every((answer) => answer === NO_ANSWER)) return ZERO_JARM;
  let fuzzy = '';
  let alpnAndExtensions = '';
  for (const answer of answers) {
    const [cipher = '', version = '', alpn = '', types = ''] = answer.split('|');
    const index =
      cipher === '' ? 0 : NUMBERED.indexOf(Number.parseInt(cipher, 16)) + 1 || NUMBERED.length + 1;
    fuzzy += index.toString(16).padStart(2, '0');
    fuzzy +=
      version.length < 4 || !/\d/.test(version.charAt(3))
        ? '0'
        : String.fromCharCode(0x61 + Number(version.charAt(3)));
    alpnAndExtensions += alpn + types;
  }
  return fuzzy + createHash('sha256').update(alpnAndExtensions).digest('hex').slice(0, 32);
}

/** Most bytes of an answer JARM reads. */
const ANSWER_BYTES = 1484;

/**
 * Runs on the worker thread: sends each probe on a connection of its own and gives back what each
 * answer says. Written without references outside itself, since only its text reaches the worker.
 */
async function probeAll(
  input: {
    readonly target: { host: string; port: number; timeoutMs: number };
    readonly hellos: readonly Uint8Array[];
    readonly answerBytes: number;
  },
  require: NodeJS.Require,
): Promise<Uint8Array[]> {
  const net = require('node:net') as typeof import('node:net');
  const { target, hellos, answerBytes } = input;
  const ask = (hello: Uint8Array) =>
    new Promise<Uint8Array>((resolve) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const socket = net.connect({ host: target.host, port: target.port });
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(Buffer.concat(chunks).subarray(0, answerBytes));
      };
      const timer = setTimeout(done, target.timeoutMs);
      socket.on('connect', () => socket.write(hello));
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        const first = Buffer.concat(chunks);
        const recordEnd = first.length >= 5 ? 5 + first.readUInt16BE(3) : Number.POSITIVE_INFINITY;
        if (length >= answerBytes || length >= recordEnd) done();
      });
      socket.on('error', done);
      socket.on('close', done);
    });
  const answers: Uint8Array[] = [];
  for (const hello of hellos) answers.push(await ask(hello));
  return answers;
}

/** `jarm("host:port")`: the server's JARM hash (the zero hash when nothing answers a probe). */
export function jarm(host: string, port: number, timeoutMs = 10_000): string {
  const hellos = PROBES.map((spec) => clientHello(spec, host));
  const input = { target: { host, port, timeoutMs }, hellos, answerBytes: ANSWER_BYTES };
  // every probe may take its whole timeout, and the worker a moment to start
  const outcome = runBlocking(probeAll, input, timeoutMs * PROBES.length + 5_000);
  const answers = outcome.kind === 'done' ? outcome.value : [];
  return jarmHash(answers.map((answer) => readServerHello(answer)));
}
