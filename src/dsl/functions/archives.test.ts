import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bytesToText, DslEvaluationError, textToBytes } from '../index.js';
import { evaluate } from '../testing/evaluate.js';
import { scratchFolder } from '../testing/scratch-folder.js';

function failure(source: string, variables = {}): DslEvaluationError {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

const hasUnzip = (() => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('zip', () => {
  it.skipIf(!hasUnzip)(
    'builds an archive that unzip reads back, entry for entry, binary content included',
    () => {
      const binary = bytesToText(Uint8Array.from({ length: 256 }, (_, i) => i));
      const archive = evaluate(
        'zip("shell.jsp", "<% out.print(1); %>", "dir/data.bin", binary, "empty.txt", "")',
        {
          binary,
        },
      ) as string;
      const folder = scratchFolder('zip');
      const file = join(folder, 'a.zip');
      writeFileSync(file, textToBytes(archive));
      execFileSync('unzip', ['-tq', file]);
      const listing = execFileSync('unzip', ['-Z1', file]).toString().trim().split('\n');
      expect(listing).toEqual(['shell.jsp', 'dir/data.bin', 'empty.txt']);
      execFileSync('unzip', ['-q', file, '-d', join(folder, 'out')]);
      expect(readFileSync(join(folder, 'out', 'shell.jsp'), 'utf8')).toBe('<% out.print(1); %>');
      expect([...readFileSync(join(folder, 'out', 'dir', 'data.bin'))]).toEqual([...textToBytes(binary)]);
    },
  );

  it("lays out Go's headers: version 2.0, data descriptor flag, deflate, no time, UTF-8 flag only when needed", () => {
    const archive = textToBytes(evaluate('zip("a.txt", "hello", "é.txt", "x")') as string);
    expect(archive.readUInt32LE(0)).toBe(0x04034b50);
    expect(archive.readUInt16LE(4)).toBe(20);
    expect(archive.readUInt16LE(6)).toBe(0x0008);
    expect(archive.readUInt16LE(8)).toBe(8);
    expect(archive.readUInt32LE(10)).toBe(0);
    expect(archive.subarray(30, 35).toString()).toBe('a.txt');
    const second = archive.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), 4);
    expect(archive.readUInt16LE(second + 6)).toBe(0x0808);
    const end = archive.length - 22;
    expect(archive.readUInt32LE(end)).toBe(0x06054b50);
    expect(archive.readUInt16LE(end + 10)).toBe(2);
  });

  it('refuses an odd number of arguments, a non-string argument and content for a directory', () => {
    expect(failure('zip("a", "b", "c")').message).toMatch(/pairs of file name and content/);
    expect(failure('zip("a", 1)').message).toMatch(/argument 2 \(a file's content\) must be a string/);
    expect(failure('zip("dir/", "x")').message).toMatch(/is a directory/);
  });
});

describe('gzip_mtime', () => {
  const withMtime = (seconds: number, extraFlags = 0, fields: number[] = []) => {
    const data = gzipSync('hello');
    data.writeUInt32LE(seconds, 4);
    const header = Buffer.from([...data.subarray(0, 10), ...fields]);
    header[3] = (header[3] as number) | extraFlags;
    return bytesToText(Buffer.concat([header, data.subarray(10)]));
  };

  it('reads the modification time of gzip data, 0 when unset as Go writes it', () => {
    expect(evaluate('gzip_mtime(data)', { data: withMtime(1_700_000_000) })).toBe(1_700_000_000);
    expect(evaluate('gzip_mtime(gzip("x"))')).toBe(0);
  });

  it('reads past a file name field and checks the header CRC when one is there', () => {
    expect(evaluate('gzip_mtime(data)', { data: withMtime(42, 0x08, [...Buffer.from('a.txt'), 0]) })).toBe(
      42,
    );
    expect(failure('gzip_mtime(data)', { data: withMtime(42, 0x02, [0, 0]) }).message).toMatch(
      /invalid header/,
    );
    expect(failure('gzip_mtime(data)', { data: withMtime(42, 0x08, [0x61]).slice(0, 11) }).message).toMatch(
      /cut short/,
    );
  });

  it('fails on data that is not gzip', () => {
    expect(failure('gzip_mtime("hello world")').message).toBe(
      'gzip_mtime: the data is not gzip (gzip: invalid header)',
    );
  });
});

describe('unpack', () => {
  it('reads the first value of the format, little-endian by default, big-endian after ">"', () => {
    expect(evaluate('unpack("I", hex_decode("01000000"))')).toBe(1);
    expect(evaluate('unpack(">I", hex_decode("00000102"))')).toBe(258);
    expect(evaluate('unpack(">h", hex_decode("fffe"))')).toBe(-2);
    expect(evaluate('unpack("B", hex_decode("ff"))')).toBe(255);
    expect(evaluate('unpack("b", hex_decode("ff"))')).toBe(-1);
    expect(evaluate('unpack(">q", hex_decode("0000000100000000"))')).toBe(4_294_967_296);
    expect(evaluate('unpack(">d", hex_decode("400921fb54442d18"))')).toBe(Math.PI);
    expect(evaluate('unpack("<f", hex_decode("0000c03f"))')).toBe(1.5);
    expect(evaluate('unpack("?", hex_decode("01"))')).toBe(true);
  });

  it("keeps gostruct's readings nuclei templates see: unsigned codes read as signed, ? as a signed byte", () => {
    expect(evaluate('unpack(">H", hex_decode("ffff"))')).toBe(-1);
    expect(evaluate('unpack("<I", hex_decode("ffffffff"))')).toBe(-1);
    expect(evaluate('unpack("?", hex_decode("80"))')).toBe(false);
  });

  it('needs the whole format to fit in the data, and refuses characters it does not know, counts included', () => {
    expect(failure('unpack(">II", hex_decode("00000001"))').message).toBe(
      'unpack: the format needs 8 bytes, the data has 4',
    );
    expect(failure('unpack("4s", "abcd")').message).toMatch(/unexpected format character "4"/);
    expect(failure('unpack(">", "abcd")').message).toMatch(/names no value/);
    expect(failure('unpack(1, "abcd")').message).toMatch(/argument 1 \(the format\) must be a string/);
  });
});
