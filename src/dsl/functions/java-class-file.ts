/**
 * A writer of Java class files (The Java Virtual Machine Specification, chapter 4): a constant pool of
 * UTF-8 texts, classes, strings and method references, and methods whose code is a straight run of
 * instructions. Enough to write the class a deserialized TemplatesImpl defines and instantiates.
 *
 * The files are of version 49 (Java 5): a JVM of any version since reads them, and code without
 * branches needs no stack map frames.
 */
import { modifiedUtf8 } from './java-serialization.js';

const MAGIC = 0xcafebabe;
const MAJOR_VERSION = 49;

const CONSTANT_UTF8 = 1;
const CONSTANT_CLASS = 7;
const CONSTANT_STRING = 8;
const CONSTANT_METHODREF = 10;
const CONSTANT_NAME_AND_TYPE = 12;
/** A constant pool index is an unsigned 16-bit number, and index 0 is never used. */
const MAX_CONSTANTS = 0xffff;

export const ACC_PUBLIC = 0x0001;
export const ACC_STATIC = 0x0008;
/** Set on every class since Java 1.0.2: invokespecial calls the superclass's method. */
export const ACC_SUPER = 0x0020;

/** The instructions the methods written here use (JVMS §6.5). */
export const OPCODE = {
  aload_0: 0x2a,
  ldc_w: 0x13,
  pop: 0x57,
  return: 0xb1,
  invokevirtual: 0xb6,
  invokespecial: 0xb7,
  invokestatic: 0xb8,
} as const;

export class ClassFileError extends Error {}

class ByteWriter {
  readonly bytes: number[] = [];

  u1(value: number): this {
    this.bytes.push(value & 0xff);
    return this;
  }

  u2(value: number): this {
    return this.u1(value >> 8).u1(value);
  }

  u4(value: number): this {
    return this.u2((value >>> 16) & 0xffff).u2(value & 0xffff);
  }

  append(bytes: readonly number[]): this {
    for (const byte of bytes) this.bytes.push(byte);
    return this;
  }
}

/** The constant pool, each constant written once however often it is asked for. */
export class ConstantPool {
  private readonly entries = new ByteWriter();
  private readonly indexes = new Map<string, number>();
  private count = 0;

  private add(key: string, write: (entries: ByteWriter) => void): number {
    const known = this.indexes.get(key);
    if (known !== undefined) return known;
    if (this.count + 1 >= MAX_CONSTANTS) throw new ClassFileError('the class has too many constants');
    write(this.entries);
    this.count += 1;
    this.indexes.set(key, this.count);
    return this.count;
  }

  utf8(text: string): number {
    const encoded = modifiedUtf8(text);
    if (encoded.length > 0xffff) {
      throw new ClassFileError(`a text of the class is ${encoded.length} bytes long, more than 65535`);
    }
    return this.add(`utf8:${text}`, (out) => out.u1(CONSTANT_UTF8).u2(encoded.length).append(encoded));
  }

  /** A class by its internal name, `java/lang/Runtime`. */
  classRef(internalName: string): number {
    const name = this.utf8(internalName);
    return this.add(`class:${internalName}`, (out) => out.u1(CONSTANT_CLASS).u2(name));
  }

  string(text: string): number {
    const value = this.utf8(text);
    return this.add(`string:${text}`, (out) => out.u1(CONSTANT_STRING).u2(value));
  }

  methodRef(owner: string, name: string, descriptor: string): number {
    const ownerIndex = this.classRef(owner);
    const nameIndex = this.utf8(name);
    const descriptorIndex = this.utf8(descriptor);
    const nameAndType = this.add(`nat:${name}:${descriptor}`, (out) =>
      out.u1(CONSTANT_NAME_AND_TYPE).u2(nameIndex).u2(descriptorIndex),
    );
    return this.add(`method:${owner}.${name}:${descriptor}`, (out) =>
      out.u1(CONSTANT_METHODREF).u2(ownerIndex).u2(nameAndType),
    );
  }

  write(out: ByteWriter): void {
    out.u2(this.count + 1).append(this.entries.bytes);
  }
}

export interface Method {
  readonly access: number;
  readonly name: string;
  /** `()V`, `(Ljava/lang/String;)V`. */
  readonly descriptor: string;
  readonly maxStack: number;
  /** `this` and the parameters count among the locals. */
  readonly maxLocals: number;
  readonly code: readonly number[];
}

export interface ClassFile {
  /** The internal name, `die/verwandlung/Payload`. */
  readonly name: string;
  readonly superclass: string;
  readonly access: number;
  /** Methods whose code refers to the constant pool they are written with. */
  readonly methods: (pool: ConstantPool) => readonly Method[];
}

/** The bytes of a class file (JVMS §4.1), without fields, interfaces or attributes beyond `Code`. */
export function writeClassFile(definition: ClassFile): Buffer {
  const pool = new ConstantPool();
  const thisClass = pool.classRef(definition.name);
  const superClass = pool.classRef(definition.superclass);
  const codeName = pool.utf8('Code');
  const methods = new ByteWriter();
  const declared = definition.methods(pool);
  methods.u2(declared.length);
  for (const method of declared) {
    methods.u2(method.access).u2(pool.utf8(method.name)).u2(pool.utf8(method.descriptor));
    methods.u2(1); // one attribute: Code (JVMS §4.7.3)
    const attributeLength = 2 + 2 + 4 + method.code.length + 2 + 2;
    methods.u2(codeName).u4(attributeLength);
    methods.u2(method.maxStack).u2(method.maxLocals).u4(method.code.length).append(method.code);
    methods.u2(0); // no exception handlers
    methods.u2(0); // no attributes of the code
  }
  const out = new ByteWriter().u4(MAGIC).u2(0).u2(MAJOR_VERSION);
  pool.write(out);
  out.u2(definition.access).u2(thisClass).u2(superClass);
  out.u2(0); // no interfaces
  out.u2(0); // no fields
  out.append(methods.bytes);
  out.u2(0); // no attributes of the class
  return Buffer.from(out.bytes);
}

/** The two bytes of a constant pool index, as an instruction's operand. */
export function index16(index: number): [number, number] {
  return [(index >> 8) & 0xff, index & 0xff];
}
