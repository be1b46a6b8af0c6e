import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appears, hasJava, readWithJava } from '../testing/java.js';
import { fieldOf, readJavaStream } from '../testing/java-stream.js';
import { scratchFolder } from '../testing/scratch-folder.js';
import { ClassFileError } from './java-class-file.js';
import { TEMPLATES_IMPL_FORMS } from './java-classes.js';
import { modifiedUtf8 } from './java-serialization.js';
import { templatesImplAlone, transletClass } from './java-templates.js';

const markerIn = (name: string) => join(scratchFolder('translet'), name);

describe('the TemplatesImpl payload', () => {
  it.skipIf(!hasJava)(
    'runs its command when a JVM 17 that deserializes TemplatesImpl (the default before its late-2026 updates) reads it and asks it for a transformer',
    async () => {
      const marker = markerIn('ran');
      const report = readWithJava(templatesImplAlone(`touch ${marker}`), { transform: true });
      expect(report).toEqual([
        'class com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl',
        'class [[B',
        'class [B',
        'read com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl',
        // the command ran in the class's static initializer; AbstractTranslet then fails on a translet
        // that no stylesheet compiler made
        expect.stringMatching(
          /^transformer failed java\.lang\.NullPointerException: .* in .*AbstractTranslet$/,
        ),
      ]);
      expect(await appears(marker)).toBe(true);
    },
    90_000,
  );

  it.skipIf(!hasJava)(
    'keeps a command beyond ASCII whole in the class constant',
    async () => {
      const marker = markerIn('é-\u{1F600}');
      readWithJava(templatesImplAlone(`touch ${marker}`), { transform: true });
      expect(await appears(marker)).toBe(true);
    },
    90_000,
  );

  it('writes each form of TemplatesImpl with the fields its JDK has, the translet in _bytecodes', () => {
    for (const form of ['jdk7', 'jdk8', 'current'] as const) {
      const [templates] = readJavaStream(templatesImplAlone('id', form));
      const className = TEMPLATES_IMPL_FORMS[form].name;
      expect(templates?.kind === 'object' && templates.descriptor.fields.map((field) => field.name)).toEqual(
        TEMPLATES_IMPL_FORMS[form].fields.map((field) => field.name),
      );
      expect(fieldOf(templates, className, '_transletIndex')).toBe(-1);
      const name = fieldOf(templates, className, '_name');
      expect(typeof name === 'object' && name.kind === 'string' && name.value).toBe('keyhole');
      const bytecodes = fieldOf(templates, className, '_bytecodes');
      const classes = typeof bytecodes === 'object' && bytecodes.kind === 'array' ? bytecodes.elements : [];
      expect(classes).toHaveLength(1);
      const [translet] = classes as { kind: string; elements: Buffer }[];
      expect(translet?.elements).toEqual(transletClass('id'));
    }
  });

  it('writes a class file of version 49 extending AbstractTranslet, the command a UTF-8 constant', () => {
    const command = 'touch /tmp/é';
    const bytes = transletClass(command);
    expect(bytes.readUInt32BE(0)).toBe(0xcafebabe);
    expect(bytes.readUInt16BE(6)).toBe(49);
    const encoded = Buffer.from(modifiedUtf8(command));
    const at = bytes.indexOf(encoded);
    expect(bytes[at - 3]).toBe(1); // CONSTANT_Utf8
    expect(bytes.readUInt16BE(at - 2)).toBe(encoded.length);
    expect(
      bytes.includes(Buffer.from('com/sun/org/apache/xalan/internal/xsltc/runtime/AbstractTranslet')),
    ).toBe(true);
  });

  it('refuses a command longer than a class constant holds', () => {
    expect(() => transletClass('x'.repeat(65_536))).toThrow(ClassFileError);
    expect(() => transletClass('x'.repeat(65_536))).toThrow(/65536 bytes long, more than 65535/);
    expect(transletClass('x'.repeat(65_535)).length).toBeGreaterThan(65_535);
  });
});
