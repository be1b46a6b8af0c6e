/**
 * A reader of .NET Remoting Binary Format streams, written from [MS-NRBF]
 * (https://learn.microsoft.com/openspecs/windows_protocols/ms-nrbf/), for tests: it reads every
 * record a BinaryFormatter stream may hold up to MessageEnd, and fails on a record type the
 * specification does not define, on an object id given twice, on a reference to an object the stream
 * never defines, or on bytes after the end.
 */

export interface NrbfClass {
  readonly kind: 'class';
  readonly id: number;
  readonly name: string;
  readonly library: number | undefined;
  readonly members: readonly {
    readonly name: string;
    readonly binaryType: number;
    readonly info?: unknown;
  }[];
  readonly values: NrbfValue[];
}

export type NrbfValue =
  | boolean
  | number
  | bigint
  | string
  | { readonly kind: 'null' }
  | { readonly kind: 'reference'; readonly id: number }
  | { readonly kind: 'string'; readonly id: number; readonly value: string }
  | { readonly kind: 'array'; readonly id: number; readonly elements: NrbfValue[] | Buffer }
  | NrbfClass;

export interface NrbfStream {
  readonly rootId: number;
  readonly libraries: ReadonlyMap<number, string>;
  /** Every object with an id, by id. */
  readonly objects: ReadonlyMap<number, NrbfValue>;
  readonly root: NrbfValue;
}

export class NrbfReadError extends Error {}

const PRIMITIVE_READERS: Readonly<Record<number, (reader: Reader) => NrbfValue>> = {
  1: (r) => r.u8() !== 0,
  2: (r) => r.u8(),
  3: (r) => r.char(),
  5: (r) => r.text(),
  6: (r) => r.take(8).readDoubleLE(0),
  7: (r) => r.take(2).readInt16LE(0),
  8: (r) => r.i32(),
  9: (r) => r.take(8).readBigInt64LE(0),
  10: (r) => r.take(1).readInt8(0),
  11: (r) => r.take(4).readFloatLE(0),
  12: (r) => r.take(8).readBigInt64LE(0),
  13: (r) => r.take(8).readBigUInt64LE(0),
  14: (r) => r.take(2).readUInt16LE(0),
  15: (r) => r.take(4).readUInt32LE(0),
  16: (r) => r.take(8).readBigUInt64LE(0),
  18: (r) => r.text(),
};

class Reader {
  private offset = 0;
  readonly libraries = new Map<number, string>();
  readonly objects = new Map<number, NrbfValue>();
  readonly classes = new Map<number, NrbfClass>();
  readonly references: number[] = [];

  constructor(private readonly bytes: Buffer) {}

  fail(message: string): never {
    throw new NrbfReadError(`at byte ${this.offset}: ${message}`);
  }

  take(length: number): Buffer {
    if (this.offset + length > this.bytes.length) this.fail(`${length} bytes expected, the stream ends`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  u8 = () => this.take(1).readUInt8(0);
  i32 = () => this.take(4).readInt32LE(0);
  atEnd = () => this.offset === this.bytes.length;

  /** LengthPrefixedString: a 7-bit encoded byte count (at most 5 bytes), then UTF-8. */
  text(): string {
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift > 28) this.fail('a string length longer than 5 bytes');
      const byte = this.u8();
      length |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    return this.take(length).toString('utf8');
  }

  char(): string {
    const first = this.bytes[this.offset] ?? 0;
    const length = first < 0x80 ? 1 : first < 0xe0 ? 2 : first < 0xf0 ? 3 : 4;
    return this.take(length).toString('utf8');
  }

  private define<T extends NrbfValue>(id: number, value: T): T {
    if (this.objects.has(id)) this.fail(`object id ${id} is defined twice`);
    this.objects.set(id, value);
    return value;
  }

  /** One record; `undefined` for those that define no value (header, library, end). */
  record(): NrbfValue | 'end' | undefined {
    const type = this.u8();
    switch (type) {
      case 0: // SerializationHeaderRecord
        this.take(16);
        return undefined;
      case 12: // BinaryLibrary
        this.libraries.set(this.i32(), this.text());
        return undefined;
      case 11: // MessageEnd
        return 'end';
      case 1: // ClassWithId
        return this.classWithId();
      case 2: // SystemClassWithMembers
      case 3: // ClassWithMembers
        return this.fail('a class record without member types (not read here)');
      case 4: // SystemClassWithMembersAndTypes
      case 5: // ClassWithMembersAndTypes
        return this.classWithMembersAndTypes(type === 5);
      case 6: // BinaryObjectString
        return this.stringRecord();
      case 7: // BinaryArray
        return this.fail('a BinaryArray (not read here)');
      case 8: // MemberPrimitiveTyped
        return this.primitive(this.u8());
      case 9: {
        const id = this.i32();
        this.references.push(id);
        return { kind: 'reference', id };
      }
      case 10:
        return { kind: 'null' };
      case 15: {
        const id = this.i32();
        const length = this.i32();
        const primitive = this.u8();
        const elements =
          primitive === 2
            ? Buffer.from(this.take(length))
            : Array.from({ length }, () => this.primitive(primitive));
        return this.define(id, { kind: 'array', id, elements });
      }
      case 16:
      case 17: {
        const id = this.i32();
        const length = this.i32();
        const elements: NrbfValue[] = [];
        const array = this.define(id, { kind: 'array', id, elements });
        while (elements.length < length) {
          const nulls = this.nulls();
          if (nulls > 0) elements.push(...Array.from({ length: nulls }, () => ({ kind: 'null' }) as const));
          else elements.push(this.required());
        }
        return array;
      }
      default:
        return this.fail(`record type ${type} is not one of [MS-NRBF]'s`);
    }
  }

  /** ObjectNullMultiple(256) records, as the number of nulls they stand for. */
  private nulls(): number {
    const type = this.bytes[this.offset];
    if (type === 13) {
      this.offset += 1;
      return this.u8();
    }
    if (type === 14) {
      this.offset += 1;
      return this.i32();
    }
    return 0;
  }

  private required(): NrbfValue {
    const value = this.record();
    if (value === undefined || value === 'end') this.fail('a value expected');
    return value;
  }

  private stringRecord(): NrbfValue {
    const id = this.i32();
    return this.define(id, { kind: 'string', id, value: this.text() });
  }

  private primitive(type: number): NrbfValue {
    const read = PRIMITIVE_READERS[type];
    if (read === undefined) this.fail(`primitive type ${type} is not one of [MS-NRBF]'s`);
    return read(this);
  }

  private classWithMembersAndTypes(withLibrary: boolean): NrbfValue {
    const id = this.i32();
    const name = this.text();
    const count = this.i32();
    const names = Array.from({ length: count }, () => this.text());
    const binaryTypes = names.map(() => this.u8());
    const members = names.map((memberName, index) => {
      const binaryType = binaryTypes[index] as number;
      if (binaryType === 0 || binaryType === 7) return { name: memberName, binaryType, info: this.u8() };
      if (binaryType === 3) return { name: memberName, binaryType, info: this.text() };
      if (binaryType === 4)
        return { name: memberName, binaryType, info: { className: this.text(), library: this.i32() } };
      if (binaryType > 7) this.fail(`binary type ${binaryType} is not one of [MS-NRBF]'s`);
      return { name: memberName, binaryType };
    });
    const library = withLibrary ? this.i32() : undefined;
    if (library !== undefined && !this.libraries.has(library))
      this.fail(`class ${name} names library ${library}, not defined before`);
    const record: NrbfClass = { kind: 'class', id, name, library, members, values: [] };
    this.classes.set(id, record);
    this.define(id, record);
    this.memberValues(record);
    return record;
  }

  private classWithId(): NrbfValue {
    const id = this.i32();
    const metadata = this.classes.get(this.i32());
    if (metadata === undefined) this.fail('ClassWithId names a class not described before');
    const record: NrbfClass = { ...metadata, id, values: [] };
    this.define(id, record);
    this.memberValues(record);
    return record;
  }

  private memberValues(record: NrbfClass): void {
    for (const member of record.members) {
      if (member.binaryType === 0) record.values.push(this.primitive(member.info as number));
      else record.values.push(this.required());
    }
  }
}

/** Reads a whole stream; the root is the object the header names. */
export function readNrbf(bytes: Buffer): NrbfStream {
  const reader = new Reader(bytes);
  if (bytes[0] !== 0) reader.fail('the stream does not start with a SerializationHeaderRecord');
  const rootId = bytes.readInt32LE(1);
  for (let record = reader.record(); record !== 'end'; record = reader.record()) {
    if (reader.atEnd()) reader.fail('the stream ends without MessageEnd');
  }
  if (!reader.atEnd()) reader.fail('bytes after MessageEnd');
  for (const id of reader.references) {
    if (!reader.objects.has(id))
      throw new NrbfReadError(`a reference to object ${id}, which the stream does not define`);
  }
  const root = reader.objects.get(rootId);
  if (root === undefined) throw new NrbfReadError(`the root object ${rootId} is not defined`);
  return { rootId, libraries: reader.libraries, objects: reader.objects, root };
}

/** The value of a member of a class object, references followed. */
export function memberOf(stream: NrbfStream, object: NrbfValue | undefined, name: string): NrbfValue {
  const resolved = follow(stream, object);
  if (typeof resolved !== 'object' || resolved.kind !== 'class')
    throw new Error(`not a class object: ${String(resolved)}`);
  const index = resolved.members.findIndex((member) => member.name === name);
  if (index < 0) throw new Error(`${resolved.name} has no member ${name}`);
  return follow(stream, resolved.values[index]);
}

export function follow(stream: NrbfStream, value: NrbfValue | undefined): NrbfValue {
  if (value === undefined) throw new Error('no value');
  return typeof value === 'object' && value.kind === 'reference'
    ? (stream.objects.get(value.id) as NrbfValue)
    : value;
}

/** The text of a string value. */
export function textOf(stream: NrbfStream, value: NrbfValue | undefined): string {
  const resolved = follow(stream, value);
  if (typeof resolved !== 'object' || resolved.kind !== 'string') throw new Error('not a string');
  return resolved.value;
}
