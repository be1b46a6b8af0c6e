import { describe, expect, it } from 'vitest';
import { hasJar, JARS, serialVersionUids } from '../testing/java.js';
import {
  COMMONS_COLLECTIONS_3,
  COMMONS_COLLECTIONS_4,
  GROOVY_2_3,
  JAVA,
  JDK,
  TEMPLATES_IMPL_FORMS,
} from './java-classes.js';
import type { ClassDescriptor } from './java-serialization.js';

function withSuperclasses(descriptors: readonly ClassDescriptor[]): Map<string, bigint> {
  const all = new Map<string, bigint>();
  for (let pending = [...descriptors]; pending.length > 0; ) {
    const descriptor = pending.pop() as ClassDescriptor;
    // a class that is not serializable is written with UID 0, as ObjectOutputStream writes it
    if (descriptor.flags !== 0) all.set(descriptor.name, descriptor.serialVersionUid);
    if (descriptor.superclass) pending.push(descriptor.superclass);
  }
  return all;
}

const ALL_JARS = [JARS.commonsCollections3, JARS.commonsCollections4, JARS.groovy];

describe('the class descriptors of the Java gadgets', () => {
  it.skipIf(!ALL_JARS.every(hasJar))(
    "have the serialVersionUIDs JDK 17 and Debian's libraries compute, but where the gadget targets an older version",
    () => {
      const expected = withSuperclasses([
        ...Object.values(JAVA),
        ...Object.values(JDK),
        ...Object.values(TEMPLATES_IMPL_FORMS),
        ...Object.values(COMMONS_COLLECTIONS_3),
        ...Object.values(COMMONS_COLLECTIONS_4),
        ...Object.values(GROOVY_2_3),
      ]);
      const computed = serialVersionUids([...expected.keys()], ALL_JARS);
      const differences = [...expected].filter(([name, uid]) => computed.get(name) !== uid.toString());
      expect(differences.map(([name]) => `${name}: ${computed.get(name)}`)).toEqual([
        // groovy 2.4.4 changed it when it stopped reading MethodClosure
        'org.codehaus.groovy.runtime.MethodClosure: 5316055624606528584',
        // commons-collections4 4.1 made it unserializable
        'org.apache.commons.collections4.functors.InstantiateTransformer: unserializable',
      ]);
    },
    90_000,
  );
});
