/**
 * A writer of .NET Remoting Binary Format streams ([MS-NRBF], what BinaryFormatter reads): the
 * serialization header, libraries (assemblies), classes with their member names and types, strings,
 * references, null, single-dimension arrays of strings and of bytes, and the message end. Written
 * from the specification (https://learn.microsoft.com/openspecs/windows_protocols/ms-nrbf/).
 *
 * A stream is given as its records, object ids chosen by the caller, so that a gadget's bytes can be
 * those of the tool that made it known.
 */

/** [MS-NRBF] 2.1.2.3 PrimitiveTypeEnumeration (the ones gadgets use). */
export const PRIMITIVE = { Boolean: 1, Byte: 2, Int32: 8 } as const;
export type PrimitiveType = keyof typeof PRIMITIVE;

/** [MS-NRBF] 2.1.2.2 BinaryTypeEnumeration, with its additional information. */
export type MemberType =
  | { readonly binary: 'primitive'; readonly primitive: PrimitiveType }
  | { readonly binary: 'string' }
  | { readonly binary: 'object' }
  | { readonly binary: 'systemClass'; readonly className: string }
  | { readonly binary: 'class'; readonly className: string; readonly library: number }
  | { readonly binary: 'stringArray' }
  | { readonly binary: 'primitiveArray'; readonly primitive: PrimitiveType };

const BINARY_TYPE: Readonly<Record<MemberType['binary'], number>> = {
  primitive: 0,
  string: 1,
  object: 2,
  systemClass: 3,
  class: 4,
  stringArray: 6,
  primitiveArray: 7,
};

export interface Member {
  readonly name: string;
  readonly type: MemberType;
}

/** A member's value: a primitive, or a record written inline. */
export type Value = boolean | number | ObjectString | Reference | Null | ClassRecord;

export interface ObjectString {
  readonly record: 'string';
  readonly id: number;
  readonly value: string;
}

export interface Reference {
  readonly record: 'reference';
  readonly id: number;
}

export interface Null {
  readonly record: 'null';
}

/**
 * ClassWithMembersAndTypes (with a library) or SystemClassWithMembersAndTypes (without: a class of
 * mscorlib).
 */
export interface ClassRecord {
  readonly record: 'class';
  readonly id: number;
  readonly name: string;
  readonly library?: number;
  readonly members: readonly Member[];
  readonly values: readonly Value[];
}

/** Another object of a class described before, by the id of that record. */
export interface ClassWithIdRecord {
  readonly record: 'classWithId';
  readonly id: number;
  readonly metadataId: number;
  readonly values: readonly Value[];
}

export type NrbfRecord =
  | { readonly record: 'header'; readonly rootId: number }
  | { readonly record: 'library'; readonly id: number; readonly name: string }
  | ClassRecord
  | ClassWithIdRecord
  | {
      readonly record: 'stringArray';
      readonly id: number;
      readonly elements: readonly (ObjectString | Reference | Null)[];
    }
  | { readonly record: 'byteArray'; readonly id: number; readonly bytes: Uint8Array }
  | { readonly record: 'end' };

export const string = (id: number, value: string): ObjectString => ({ record: 'string', id, value });
export const reference = (id: number): Reference => ({ record: 'reference', id });
export const NULL: Null = { record: 'null' };

const RECORD_TYPE = {
  header: 0,
  classWithId: 1,
  systemClassWithMembersAndTypes: 4,
  classWithMembersAndTypes: 5,
  binaryObjectString: 6,
  memberReference: 9,
  objectNull: 10,
  messageEnd: 11,
  binaryLibrary: 12,
  arraySinglePrimitive: 15,
  arraySingleString: 17,
} as const;

export class NrbfError extends Error {}

class Writer {
  private readonly chunks: Buffer[] = [];
  private readonly classes = new Map<number, ClassRecord>();

  private push(bytes: Buffer): void {
    this.chunks.push(bytes);
  }

  u8(value: number): void {
    this.push(Buffer.of(value & 0xff));
  }

  i32(value: number): void {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32LE(value);
    this.push(bytes);
  }

  /** [MS-NRBF] 2.1.1.6 LengthPrefixedString: UTF-8, its byte count as a 7-bit variable-length integer. */
  text(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.push(variableLength(bytes.length));
    this.push(bytes);
  }

  record(record: NrbfRecord | Value): void {
    if (typeof record !== 'object') throw new NrbfError('a primitive value outside a class');
    switch (record.record) {
      case 'header':
        this.u8(RECORD_TYPE.header);
        this.i32(record.rootId);
        this.i32(-1); // header id
        this.i32(1); // major version
        this.i32(0); // minor version
        return;
      case 'library':
        this.u8(RECORD_TYPE.binaryLibrary);
        this.i32(record.id);
        this.text(record.name);
        return;
      case 'class':
        this.classRecord(record);
        return;
      case 'classWithId': {
        const metadata = this.classes.get(record.metadataId);
        if (metadata === undefined)
          throw new NrbfError(`no class record ${record.metadataId} before object ${record.id}`);
        this.u8(RECORD_TYPE.classWithId);
        this.i32(record.id);
        this.i32(record.metadataId);
        this.values(metadata.members, record.values);
        return;
      }
      case 'string':
        this.u8(RECORD_TYPE.binaryObjectString);
        this.i32(record.id);
        this.text(record.value);
        return;
      case 'reference':
        this.u8(RECORD_TYPE.memberReference);
        this.i32(record.id);
        return;
      case 'null':
        this.u8(RECORD_TYPE.objectNull);
        return;
      case 'stringArray':
        this.u8(RECORD_TYPE.arraySingleString);
        this.i32(record.id);
        this.i32(record.elements.length);
        for (const element of record.elements) this.record(element);
        return;
      case 'byteArray':
        this.u8(RECORD_TYPE.arraySinglePrimitive);
        this.i32(record.id);
        this.i32(record.bytes.length);
        this.u8(PRIMITIVE.Byte);
        this.push(Buffer.from(record.bytes));
        return;
      case 'end':
        this.u8(RECORD_TYPE.messageEnd);
        return;
    }
  }

  private classRecord(record: ClassRecord): void {
    this.classes.set(record.id, record);
    const system = record.library === undefined;
    this.u8(system ? RECORD_TYPE.systemClassWithMembersAndTypes : RECORD_TYPE.classWithMembersAndTypes);
    // ClassInfo
    this.i32(record.id);
    this.text(record.name);
    this.i32(record.members.length);
    for (const member of record.members) this.text(member.name);
    // MemberTypeInfo: every binary type, then the additional information of those that have one
    for (const member of record.members) this.u8(BINARY_TYPE[member.type.binary]);
    for (const { type } of record.members) {
      if (type.binary === 'primitive' || type.binary === 'primitiveArray') this.u8(PRIMITIVE[type.primitive]);
      else if (type.binary === 'systemClass') this.text(type.className);
      else if (type.binary === 'class') {
        this.text(type.className);
        this.i32(type.library);
      }
    }
    if (record.library !== undefined) this.i32(record.library);
    this.values(record.members, record.values);
  }

  private values(members: readonly Member[], values: readonly Value[]): void {
    if (members.length !== values.length)
      throw new NrbfError(`${members.length} members, ${values.length} values`);
    members.forEach((member, index) => {
      this.value(member.type, values[index] as Value);
    });
  }

  private value(type: MemberType, value: Value): void {
    if (type.binary !== 'primitive') {
      this.record(value);
      return;
    }
    switch (type.primitive) {
      case 'Boolean':
        this.u8(value === true ? 1 : 0);
        return;
      case 'Byte':
        this.u8(value as number);
        return;
      case 'Int32':
        this.i32(value as number);
        return;
    }
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A 7-bit encoded integer (BinaryWriter.Write7BitEncodedInt): low groups first, the high bit for more. */
export function variableLength(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** The bytes of a stream of records. */
export function writeNrbf(records: readonly NrbfRecord[]): Buffer {
  const writer = new Writer();
  for (const record of records) writer.record(record);
  return writer.toBuffer();
}
