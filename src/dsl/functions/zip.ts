/**
 * `zip(name, content, …)`: a zip archive as Go's archive/zip writer lays it out for
 * `zipWriter.Create(name)`: deflated entries with no time, sizes in a data descriptor after the data,
 * the UTF-8 flag on names that need it, no extra fields. The deflated bytes themselves differ from
 * Go's (another deflater), the entries they decompress to do not.
 */
import { deflateRawSync } from 'node:zlib';
import { bytesToText, isWellFormed, textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import { type HelperFunction, ranged } from './helper.js';

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;
const VERSION_20 = 20;

interface Entry {
  readonly name: Buffer;
  readonly flags: number;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

/** Go sets the UTF-8 flag when a name holds a character CP-437 readers would misread. */
function needsUtf8Flag(name: string): boolean {
  return isWellFormed(name) && /[\u0000-\u001f\u007e-\u{10ffff}\\]/u.test(name);
}

function u16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16LE(value);
  return out;
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value >>> 0);
  return out;
}

/** Fields shared by a local and a central header, from "version needed" to the extra length. */
function commonFields(entry: Entry, withSizes: boolean): Buffer[] {
  return [
    u16(VERSION_20),
    u16(entry.flags),
    u16(entry.method),
    u16(0), // time
    u16(0), // date
    u32(withSizes ? entry.crc : 0),
    u32(withSizes ? entry.compressedSize : 0),
    u32(withSizes ? entry.size : 0),
    u16(entry.name.length),
    u16(0), // extra
  ];
}

/** The archive of `files`, each a name and its content (as text of the language). */
export function zipArchive(files: readonly (readonly [string, string])[]): Buffer {
  const parts: Buffer[] = [];
  const entries: Entry[] = [];
  let offset = 0;
  const push = (...buffers: Buffer[]) => {
    for (const buffer of buffers) {
      parts.push(buffer);
      offset += buffer.length;
    }
  };
  for (const [name, content] of files) {
    const data = textToBytes(content);
    const directory = name.endsWith('/');
    if (directory && data.length > 0)
      throw argumentError('zip', `"${name}" is a directory: its content must be empty`);
    const compressed = directory ? Buffer.alloc(0) : deflateRawSync(data);
    const entry: Entry = {
      name: textToBytes(name),
      flags: (directory ? 0 : FLAG_DATA_DESCRIPTOR) | (needsUtf8Flag(name) ? FLAG_UTF8 : 0),
      method: directory ? METHOD_STORE : METHOD_DEFLATE,
      crc: crc32(data),
      compressedSize: compressed.length,
      size: data.length,
      offset,
    };
    entries.push(entry);
    push(u32(0x04034b50), ...commonFields(entry, false), entry.name, compressed);
    if (!directory) push(u32(0x08074b50), u32(entry.crc), u32(entry.compressedSize), u32(entry.size));
  }
  const directoryStart = offset;
  for (const entry of entries) {
    push(u32(0x02014b50), u16(VERSION_20), ...commonFields(entry, true));
    push(u16(0), u16(0), u16(0), u32(0), u32(entry.offset), entry.name);
  }
  const directorySize = offset - directoryStart;
  push(u32(0x06054b50), u16(0), u16(0), u16(entries.length), u16(entries.length));
  push(u32(directorySize), u32(directoryStart), u16(0));
  return Buffer.concat(parts);
}

export const zipFunctions: readonly HelperFunction[] = [
  ranged('zip', 2, Number.POSITIVE_INFINITY, (args) => {
    if (args.length % 2 !== 0) {
      throw argumentError('zip', 'takes pairs of file name and content; the last name has no content');
    }
    const files: [string, string][] = [];
    for (let i = 0; i < args.length; i += 2) {
      const [name, content] = [args[i], args[i + 1]];
      if (typeof name !== 'string')
        throw argumentError('zip', `argument ${i + 1} (a file name) must be a string`);
      if (typeof content !== 'string')
        throw argumentError('zip', `argument ${i + 2} (a file's content) must be a string`);
      files.push([name, content]);
    }
    return bytesToText(zipArchive(files));
  }),
];
