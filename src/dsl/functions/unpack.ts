/**
 * `unpack(format, data)`: the first value of a Python-struct-like format, as projectdiscovery/gostruct
 * reads it for nuclei. Each character of the format is a token of its own, so a count (`4s`) is not
 * understood and fails; `<` (the default) and `>` choose the byte order; the whole format must fit in
 * the data. gostruct reads the unsigned codes `H`, `I`, `L`, `Q` as signed, and `?` as a signed byte
 * above zero; both are kept, since templates compare against nuclei's values.
 */
import { textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import type { DslValue } from '../value.js';
import { fixed, type HelperFunction } from './helper.js';

type Reader = (data: Buffer, at: number, little: boolean) => DslValue;

interface Code {
  readonly size: number;
  readonly read: Reader;
}

const signedInt = (size: 1 | 2 | 4 | 8): Reader => {
  return (data, at, little) => {
    if (size === 1) return data.readInt8(at);
    if (size === 8) return Number(little ? data.readBigInt64LE(at) : data.readBigInt64BE(at));
    return little ? data.readIntLE(at, size) : data.readIntBE(at, size);
  };
};

const CODES: Readonly<Record<string, Code>> = {
  '?': { size: 1, read: (data, at) => data.readInt8(at) > 0 },
  b: { size: 1, read: signedInt(1) },
  B: { size: 1, read: (data, at) => data.readUInt8(at) },
  h: { size: 2, read: signedInt(2) },
  H: { size: 2, read: signedInt(2) },
  i: { size: 4, read: signedInt(4) },
  I: { size: 4, read: signedInt(4) },
  l: { size: 4, read: signedInt(4) },
  L: { size: 4, read: signedInt(4) },
  q: { size: 8, read: signedInt(8) },
  Q: { size: 8, read: signedInt(8) },
  f: { size: 4, read: (data, at, little) => (little ? data.readFloatLE(at) : data.readFloatBE(at)) },
  d: { size: 8, read: (data, at, little) => (little ? data.readDoubleLE(at) : data.readDoubleBE(at)) },
  // a lone `s` is a string of length zero (gostruct's count is the empty text before it)
  s: { size: 0, read: () => '' },
};

export function unpack(format: string, data: Buffer): DslValue {
  let size = 0;
  for (const token of format) {
    if (token === '<' || token === '>') continue;
    const code = CODES[token];
    if (code === undefined) {
      throw argumentError(
        'unpack',
        `unexpected format character "${token}" (one of <>?bBhHiIlLqQfds, one value at a time)`,
      );
    }
    size += code.size;
  }
  if (size > data.length) {
    throw argumentError('unpack', `the format needs ${size} bytes, the data has ${data.length}`);
  }
  let little = true;
  for (const token of format) {
    if (token === '<' || token === '>') little = token === '<';
    else return (CODES[token] as Code).read(data, 0, little);
  }
  throw argumentError('unpack', 'the format names no value');
}

export const unpackFunctions: readonly HelperFunction[] = [
  fixed('unpack', 2, (args) => {
    const [format, data] = args;
    if (typeof format !== 'string') throw argumentError('unpack', 'argument 1 (the format) must be a string');
    if (typeof data !== 'string') throw argumentError('unpack', 'argument 2 (the data) must be a string');
    return unpack(format, textToBytes(data));
  }),
];
