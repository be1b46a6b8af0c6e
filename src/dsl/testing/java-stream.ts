/**
 * A reader of Java's object serialization stream, written from the grammar of the specification
 * (https://docs.oracle.com/javase/8/docs/platform/serialization/spec/protocol.html), for tests: it
 * reads a stream without the classes it names, as far as the grammar allows (a class with a
 * writeObject method gives its optional data as a list of contents up to its end marker), and fails
 * on any byte the grammar does not expect, on a reference to a handle not yet assigned, or on bytes
 * left over.
 */

export interface StreamField {
  readonly name: string;
  /** The type code, `I`, `L`, `[`… */
  readonly code: string;
  /** The class name of an object field, `Ljava/lang/String;`. */
  readonly className?: string;
}

export interface StreamClass {
  readonly kind: 'class-descriptor';
  readonly handle: number;
  readonly name: string;
  readonly serialVersionUid: bigint;
  readonly flags: number;
  readonly fields: readonly StreamField[];
  /** The interfaces of a proxy class descriptor (whose name is empty). */
  readonly proxyInterfaces?: readonly string[];
  readonly superclass: StreamClass | undefined;
}

export type Primitive = number | bigint | boolean;

export interface ClassData {
  readonly className: string;
  readonly values: Readonly<Record<string, Content | Primitive>>;
  /** What the class's writeObject wrote after its fields, up to the end marker. */
  readonly annotations?: readonly Content[];
}

export type Content =
  | { readonly kind: 'null' }
  | { readonly kind: 'reference'; readonly handle: number; readonly target: Content | StreamClass }
  | { readonly kind: 'string'; readonly handle: number; readonly value: string }
  | {
      readonly kind: 'object';
      readonly handle: number;
      readonly descriptor: StreamClass;
      /** Topmost serializable superclass first, as the stream holds them. */
      readonly classData: readonly ClassData[];
    }
  | {
      readonly kind: 'array';
      readonly handle: number;
      readonly descriptor: StreamClass;
      readonly elements: readonly (Content | Primitive)[] | Buffer;
    }
  | { readonly kind: 'class'; readonly handle: number; readonly descriptor: StreamClass }
  | { readonly kind: 'block'; readonly bytes: Buffer }
  | StreamClass;

const BASE_WIRE_HANDLE = 0x7e0000;
const SC_WRITE_METHOD = 0x01;
const SC_EXTERNALIZABLE = 0x04;
const PRIMITIVE_SIZES: Readonly<Record<string, number>> = { B: 1, C: 2, D: 8, F: 4, I: 4, J: 8, S: 2, Z: 1 };

export class JavaStreamError extends Error {}

class Reader {
  private offset = 4;
  private readonly handles: (Content | StreamClass)[] = [];

  constructor(private readonly bytes: Buffer) {
    if (bytes.readUInt32BE(0) !== 0xaced0005) this.fail('the stream does not start with AC ED 00 05');
  }

  fail(message: string): never {
    throw new JavaStreamError(`at byte ${this.offset}: ${message}`);
  }

  private take(length: number): Buffer {
    if (this.offset + length > this.bytes.length) this.fail(`${length} bytes expected, the stream ends`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  u8 = () => this.take(1).readUInt8(0);
  u16 = () => this.take(2).readUInt16BE(0);
  i32 = () => this.take(4).readInt32BE(0);
  i64 = () => this.take(8).readBigInt64BE(0);
  peek = () => this.bytes[this.offset];
  atEnd = () => this.offset === this.bytes.length;

  private utf(length: number): string {
    return decodeModifiedUtf8(this.take(length));
  }

  private assign<T extends Content | StreamClass>(make: (handle: number) => T): T {
    const content = make(BASE_WIRE_HANDLE + this.handles.length);
    this.handles.push(content);
    return content;
  }

  /** Assigns a handle before the content it names is complete (objects may refer to themselves). */
  private reserve(): { handle: number; fill: (content: Content | StreamClass) => void } {
    const index = this.handles.length;
    this.handles.push({ kind: 'null' });
    return { handle: BASE_WIRE_HANDLE + index, fill: (content) => (this.handles[index] = content) };
  }

  private lookUp(handle: number): Content | StreamClass {
    const found = this.handles[handle - BASE_WIRE_HANDLE];
    if (found === undefined) this.fail(`reference to handle ${handle.toString(16)}, which is not assigned`);
    return found;
  }

  content(): Content {
    const code = this.u8();
    switch (code) {
      case 0x70:
        return { kind: 'null' };
      case 0x71: {
        const handle = this.i32();
        return { kind: 'reference', handle, target: this.lookUp(handle) };
      }
      case 0x74:
        return this.assign((handle) => ({ kind: 'string', handle, value: this.utf(this.u16()) }));
      case 0x7c:
        return this.assign((handle) => ({ kind: 'string', handle, value: this.utf(Number(this.i64())) }));
      case 0x72:
      case 0x7d:
        this.offset -= 1;
        return this.classDescriptor() ?? { kind: 'null' };
      case 0x73:
        return this.object();
      case 0x75:
        return this.array();
      case 0x76: {
        const descriptor = this.requiredDescriptor();
        return this.assign((handle) => ({ kind: 'class', handle, descriptor }));
      }
      case 0x77:
        return { kind: 'block', bytes: Buffer.from(this.take(this.u8())) };
      case 0x7a:
        return { kind: 'block', bytes: Buffer.from(this.take(this.i32())) };
      default:
        return this.fail(`unexpected type code ${code.toString(16)}`);
    }
  }

  private requiredDescriptor(): StreamClass {
    const descriptor = this.classDescriptor();
    if (descriptor === undefined) this.fail('a class descriptor is null');
    return descriptor;
  }

  classDescriptor(): StreamClass | undefined {
    const code = this.u8();
    if (code === 0x70) return undefined;
    if (code === 0x71) {
      const target = this.lookUp(this.i32());
      if (target.kind !== 'class-descriptor') this.fail('a reference where a class descriptor is expected');
      return target;
    }
    if (code === 0x7d) {
      const { handle, fill } = this.reserve();
      const count = this.i32();
      const proxyInterfaces = Array.from({ length: count }, () => this.utf(this.u16()));
      this.annotations();
      const descriptor: StreamClass = {
        kind: 'class-descriptor',
        handle,
        name: '',
        serialVersionUid: 0n,
        flags: 0x02,
        fields: [],
        proxyInterfaces,
        superclass: this.classDescriptor(),
      };
      fill(descriptor);
      return descriptor;
    }
    if (code !== 0x72) this.fail(`a class descriptor expected, not type code ${code.toString(16)}`);
    const name = this.utf(this.u16());
    const serialVersionUid = this.i64();
    const { handle, fill } = this.reserve();
    const flags = this.u8();
    const fields = Array.from({ length: this.u16() }, (): StreamField => {
      const code = String.fromCharCode(this.u8());
      const fieldName = this.utf(this.u16());
      if (code !== 'L' && code !== '[') {
        if (PRIMITIVE_SIZES[code] === undefined) this.fail(`field ${fieldName} has type code ${code}`);
        return { name: fieldName, code };
      }
      const type = this.content();
      const className = type.kind === 'reference' ? type.target : type;
      if (className.kind !== 'string') this.fail(`the type of field ${fieldName} is not a string`);
      return { name: fieldName, code, className: className.value };
    });
    this.annotations();
    const descriptor: StreamClass = {
      kind: 'class-descriptor',
      handle,
      name,
      serialVersionUid,
      flags,
      fields,
      superclass: this.classDescriptor(),
    };
    fill(descriptor);
    return descriptor;
  }

  /** Contents up to an end-of-block marker. */
  private annotations(): Content[] {
    const contents: Content[] = [];
    while (this.peek() !== 0x78) contents.push(this.content());
    this.offset += 1;
    return contents;
  }

  private object(): Content {
    const descriptor = this.requiredDescriptor();
    if (descriptor.flags & SC_EXTERNALIZABLE) this.fail(`${descriptor.name} is externalizable`);
    const { handle, fill } = this.reserve();
    const hierarchy: StreamClass[] = [];
    for (let at: StreamClass | undefined = descriptor; at !== undefined; at = at.superclass)
      hierarchy.unshift(at);
    const classData: ClassData[] = [];
    const object = { kind: 'object' as const, handle, descriptor, classData };
    fill(object);
    for (const level of hierarchy) {
      const values: Record<string, Content | Primitive> = {};
      for (const field of level.fields) values[field.name] = this.value(field.code);
      const annotations = level.flags & SC_WRITE_METHOD ? this.annotations() : undefined;
      classData.push({ className: level.name, values, ...(annotations ? { annotations } : {}) });
    }
    return object;
  }

  private value(code: string): Content | Primitive {
    switch (code) {
      case 'B':
        return this.take(1).readInt8(0);
      case 'C':
        return this.u16();
      case 'S':
        return this.take(2).readInt16BE(0);
      case 'I':
        return this.i32();
      case 'J':
        return this.i64();
      case 'F':
        return this.take(4).readFloatBE(0);
      case 'D':
        return this.take(8).readDoubleBE(0);
      case 'Z':
        return this.u8() !== 0;
      default:
        return this.content();
    }
  }

  private array(): Content {
    const descriptor = this.requiredDescriptor();
    const { handle, fill } = this.reserve();
    const length = this.i32();
    const elementCode = descriptor.name.charAt(1);
    const elements =
      elementCode === 'B'
        ? Buffer.from(this.take(length))
        : Array.from({ length }, () =>
            this.value(elementCode === 'L' || elementCode === '[' ? 'L' : elementCode),
          );
    const array = { kind: 'array' as const, handle, descriptor, elements };
    fill(array);
    return array;
  }
}

/** Java's modified UTF-8 (a NUL as two bytes, supplementary characters as two surrogates). */
export function decodeModifiedUtf8(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; ) {
    const first = bytes[i] as number;
    if (first < 0x80) {
      text += String.fromCharCode(first);
      i += 1;
    } else if ((first & 0xe0) === 0xc0) {
      text += String.fromCharCode(((first & 0x1f) << 6) | ((bytes[i + 1] as number) & 0x3f));
      i += 2;
    } else {
      const unit =
        ((first & 0x0f) << 12) | (((bytes[i + 1] as number) & 0x3f) << 6) | ((bytes[i + 2] as number) & 0x3f);
      text += String.fromCharCode(unit);
      i += 3;
    }
  }
  return text;
}

/** Every top-level content of the stream, read to its last byte. */
export function readJavaStream(bytes: Buffer): Content[] {
  const reader = new Reader(bytes);
  const contents: Content[] = [];
  while (!reader.atEnd()) contents.push(reader.content());
  return contents;
}

/** The content a reference names, or the content itself. */
export function resolved(content: Content | Primitive | undefined): Content | Primitive | undefined {
  return typeof content === 'object' && content.kind === 'reference' ? (content.target as Content) : content;
}

/** The value of `field` that the class `className` of an object wrote. */
export function fieldOf(
  content: Content | Primitive | undefined,
  className: string,
  field: string,
): Content | Primitive {
  const object = resolved(content);
  if (typeof object !== 'object' || object.kind !== 'object')
    throw new Error(`not an object: ${describeContent(object)}`);
  const data = object.classData.find((level) => level.className === className);
  if (data === undefined) throw new Error(`${object.descriptor.name} has no data of ${className}`);
  const value = data.values[field];
  if (value === undefined) throw new Error(`${className} has no field ${field}`);
  return value;
}

/** The optional data `className` of an object wrote after its fields. */
export function annotationsOf(
  content: Content | Primitive | undefined,
  className: string,
): readonly Content[] {
  const object = resolved(content);
  if (typeof object !== 'object' || object.kind !== 'object')
    throw new Error(`not an object: ${describeContent(object)}`);
  return object.classData.find((level) => level.className === className)?.annotations ?? [];
}

/** A short description: the class of an object, the text of a string, `null`. */
export function describeContent(content: Content | Primitive | undefined): string {
  const value = resolved(content);
  if (typeof value !== 'object') return String(value);
  switch (value.kind) {
    case 'object':
      return value.descriptor.proxyInterfaces
        ? `proxy(${value.descriptor.proxyInterfaces.join(',')})`
        : value.descriptor.name;
    case 'string':
      return JSON.stringify(value.value);
    case 'array':
    case 'class':
      return `${value.kind} ${value.descriptor.name}`;
    case 'class-descriptor':
      return `descriptor ${value.name}`;
    default:
      return value.kind;
  }
}
