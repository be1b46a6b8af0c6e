/**
 * A writer of Java's object serialization stream (java.io.ObjectOutputStream, protocol version 2):
 * the magic and version, class descriptors with their serialVersionUID, flags and fields, objects,
 * strings in modified UTF-8, back-references by handle. Enough of the format to describe an object
 * graph of JDK classes, written from the specification
 * (https://docs.oracle.com/javase/8/docs/platform/serialization/spec/protocol.html).
 */

const STREAM_MAGIC = [0xac, 0xed];
const STREAM_VERSION = [0x00, 0x05];
const TC_NULL = 0x70;
const TC_REFERENCE = 0x71;
const TC_CLASSDESC = 0x72;
const TC_OBJECT = 0x73;
const TC_STRING = 0x74;
const TC_ARRAY = 0x75;
const TC_CLASS = 0x76;
const TC_BLOCKDATA = 0x77;
const TC_ENDBLOCKDATA = 0x78;
const TC_LONGSTRING = 0x7c;
const TC_PROXYCLASSDESC = 0x7d;
const BASE_WIRE_HANDLE = 0x7e0000;

/** The class implements Serializable. */
export const SC_SERIALIZABLE = 0x02;
/** The class has a writeObject method: its data is followed by an end-of-block marker. */
export const SC_WRITE_METHOD = 0x01;

export type FieldType = 'I' | 'F' | 'J' | 'Z' | 'B' | 'S' | 'C' | 'D' | `L${string};` | `[${string}`;

export interface Field {
  readonly name: string;
  readonly type: FieldType;
}

export interface ClassDescriptor {
  /** The binary name, `java.util.HashMap`. */
  readonly name: string;
  readonly serialVersionUid: bigint;
  readonly flags: number;
  /** In the order the stream lists them: primitive fields first, each group sorted by name. */
  readonly fields: readonly Field[];
  /** The nearest serializable superclass, if any. */
  readonly superclass?: ClassDescriptor;
}

/** Java's modified UTF-8: NUL as two bytes, characters beyond the BMP as two encoded surrogates. */
export function modifiedUtf8(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x01 && unit <= 0x7f) out.push(unit);
    else if (unit <= 0x7ff) out.push(0xc0 | (unit >> 6), 0x80 | (unit & 0x3f));
    else out.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
  }
  return out;
}

export class JavaObjectStream {
  private readonly bytes: number[] = [...STREAM_MAGIC, ...STREAM_VERSION];
  private nextHandle = BASE_WIRE_HANDLE;
  private readonly classHandles = new Map<string, number>();
  private readonly stringHandles = new Map<string, number>();

  /** Appends one by one: a spread of a long string's bytes would overflow the call stack. */
  private append(bytes: Iterable<number>): void {
    for (const byte of bytes) this.bytes.push(byte);
  }

  u8(value: number): this {
    this.bytes.push(value & 0xff);
    return this;
  }

  u16(value: number): this {
    return this.u8(value >> 8).u8(value);
  }

  i32(value: number): this {
    return this.u16((value >>> 16) & 0xffff).u16(value & 0xffff);
  }

  f32(value: number): this {
    const buffer = Buffer.alloc(4);
    buffer.writeFloatBE(value);
    this.append(buffer);
    return this;
  }

  i64(value: bigint): this {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64BE(value);
    this.append(buffer);
    return this;
  }

  private utf(text: string): this {
    const encoded = modifiedUtf8(text);
    this.u16(encoded.length);
    this.append(encoded);
    return this;
  }

  private newHandle(): number {
    return this.nextHandle++;
  }

  /** The handle of the object, class or array written last: what a later reference to it names. */
  get lastHandle(): number {
    return this.nextHandle - 1;
  }

  /** A reference to an object written before, by its handle. */
  reference(handle: number): this {
    return this.u8(TC_REFERENCE).i32(handle);
  }

  boolean(value: boolean): this {
    return this.u8(value ? 1 : 0);
  }

  null(): this {
    return this.u8(TC_NULL);
  }

  /**
   * A String object. `shared` writes a back-reference when the same text was written as a shared
   * string before, as the stream does for one String object referenced twice.
   */
  string(text: string, shared = false): this {
    const earlier = shared ? this.stringHandles.get(text) : undefined;
    if (earlier !== undefined) return this.reference(earlier);
    const handle = this.newHandle();
    if (shared) this.stringHandles.set(text, handle);
    const encoded = modifiedUtf8(text);
    if (encoded.length <= 0xffff) {
      this.u8(TC_STRING).u16(encoded.length);
    } else {
      this.u8(TC_LONGSTRING).i64(BigInt(encoded.length));
    }
    this.append(encoded);
    return this;
  }

  /** A class descriptor, or a reference to it when it was written before. */
  classDescriptor(descriptor: ClassDescriptor): this {
    const earlier = this.classHandles.get(descriptor.name);
    if (earlier !== undefined) return this.reference(earlier);
    this.u8(TC_CLASSDESC).utf(descriptor.name).i64(descriptor.serialVersionUid).u8(descriptor.flags);
    this.classHandles.set(descriptor.name, this.newHandle());
    this.u16(descriptor.fields.length);
    for (const field of descriptor.fields) {
      this.u8(field.type.charCodeAt(0)).utf(field.name);
      // an object field's type is a String object of the stream, shared like one
      if (field.type.length > 1) this.string(field.type, true);
    }
    this.u8(TC_ENDBLOCKDATA); // no class annotation
    return descriptor.superclass === undefined ? this.null() : this.classDescriptor(descriptor.superclass);
  }

  /** Starts an object of a class: its descriptor, then (by the caller) its class data. */
  object(descriptor: ClassDescriptor): this {
    this.u8(TC_OBJECT).classDescriptor(descriptor);
    this.newHandle();
    return this;
  }

  /**
   * Starts an object of a dynamic proxy class implementing `interfaces`: its proxy class descriptor,
   * whose superclass is java.lang.reflect.Proxy as `proxy` describes it, then (by the caller) the
   * fields of Proxy.
   */
  proxyObject(interfaces: readonly string[], proxy: ClassDescriptor): this {
    this.u8(TC_OBJECT).u8(TC_PROXYCLASSDESC);
    this.newHandle();
    this.i32(interfaces.length);
    for (const name of interfaces) this.utf(name);
    this.u8(TC_ENDBLOCKDATA); // no class annotation
    this.classDescriptor(proxy);
    this.newHandle();
    return this;
  }

  /**
   * The serializable fields of `descriptor`'s own class, in the order its descriptor lists them, each
   * written by the function of its name.
   */
  fields(descriptor: ClassDescriptor, values: Readonly<Record<string, (stream: this) => void>>): this {
    for (const name of Object.keys(values)) {
      if (!descriptor.fields.some((field) => field.name === name)) {
        throw new Error(`${descriptor.name} has no serializable field ${name}`);
      }
    }
    for (const field of descriptor.fields) {
      const write = values[field.name];
      if (write === undefined) throw new Error(`no value for the field ${descriptor.name}.${field.name}`);
      write(this);
    }
    return this;
  }

  /** A byte[] with its content. */
  byteArray(descriptor: ClassDescriptor, content: Uint8Array): this {
    this.u8(TC_ARRAY).classDescriptor(descriptor);
    this.newHandle();
    this.i32(content.length);
    this.append(content);
    return this;
  }

  /** A java.lang.Class object: the class's descriptor. */
  classObject(descriptor: ClassDescriptor): this {
    this.u8(TC_CLASS).classDescriptor(descriptor);
    this.newHandle();
    return this;
  }

  /** An array of objects: its class (`[Ljava.lang.Object;`), its length, then each element. */
  array(descriptor: ClassDescriptor, elements: readonly ((stream: this) => void)[]): this {
    this.u8(TC_ARRAY).classDescriptor(descriptor);
    this.newHandle();
    this.i32(elements.length);
    for (const write of elements) write(this);
    return this;
  }

  /** Optional data a writeObject method writes after the fields, as one block. */
  blockData(write: (block: JavaObjectStream) => void): this {
    const block = new JavaObjectStream();
    write(block);
    const data = block.bytes.slice(STREAM_MAGIC.length + STREAM_VERSION.length);
    if (data.length > 0xff) throw new Error('block data longer than 255 bytes is not written by this stream');
    this.u8(TC_BLOCKDATA).u8(data.length);
    this.append(data);
    return this;
  }

  endBlockData(): this {
    return this.u8(TC_ENDBLOCKDATA);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}
