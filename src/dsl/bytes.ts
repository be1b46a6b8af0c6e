/**
 * How the expression language represents Go's byte strings in JavaScript strings.
 *
 * Go strings are byte sequences: `len(body)` counts bytes, `md5(body)` hashes bytes, and a response
 * body can be binary. JavaScript strings are UTF-16. The language uses the "surrogateescape" mapping
 * (Python's PEP 383):
 *
 * - bytes that form valid UTF-8 are decoded to the characters they encode, so text stays ordinary
 *   text (`contains(body, "é")`, regexes and case mapping see characters, as Go's do on UTF-8);
 * - every byte that is not part of a valid UTF-8 sequence becomes the lone low surrogate
 *   U+DC80 + (byte − 0x80), i.e. U+DC80…U+DCFF, which valid UTF-8 can never produce.
 *
 * The mapping is a bijection between byte sequences and the strings it produces, so encoding the
 * decoded text gives back exactly the original bytes: `len`, `hex_encode`, the hashes, `base64`,
 * `substr` and `mmh3(base64_py(body))` see the same bytes Go sees. A caller holding raw bytes (an HTTP
 * response) converts them with {@link bytesToText}; a caller sending text (a rendered request) converts
 * it with {@link textToBytes}. Plain strings that were never bytes (template literals, YAML values) need
 * no conversion: they are valid Unicode and encode as UTF-8, as Go would hold them.
 */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const ESCAPE_BASE = 0xdc00;

/** ES2024 string methods (Node ≥ 20 has them; the project's type library predates them). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when `text` has no lone surrogate, i.e. no escaped byte: it is plain Unicode. */
export function isWellFormed(text: string): boolean {
  return (text as unknown as WellFormed).isWellFormed();
}

/** Decodes bytes to the language's text form (valid UTF-8 as characters, other bytes escaped). */
export function bytesToText(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return decodeEscaping(bytes);
  }
}

/** Encodes the language's text form back to the bytes it stands for. */
export function textToBytes(text: string): Buffer {
  if (isWellFormed(text)) return Buffer.from(text, 'utf8');
  return encodeEscaped(text);
}

/** Go's `len(s)`: the number of bytes `text` stands for. */
export function byteLength(text: string): number {
  if (isWellFormed(text)) return Buffer.byteLength(text, 'utf8');
  return encodeEscaped(text).length;
}

/** True when `text` holds only ASCII, where byte offsets and string offsets coincide. */
export function isAscii(text: string): boolean {
  return /^[\u0000-\u007f]*$/.test(text);
}

/** Replaces escaped bytes by U+FFFD, as Go's rune-wise string functions see invalid UTF-8. */
export function replaceInvalidBytes(text: string): string {
  if (isWellFormed(text)) return text;
  return (text as unknown as WellFormed).toWellFormed();
}

function decodeEscaping(bytes: Uint8Array): string {
  let out = '';
  let chunkStart = 0;
  let i = 0;
  const flushValid = (end: number): void => {
    if (end > chunkStart) out += strictUtf8.decode(bytes.subarray(chunkStart, end));
  };
  while (i < bytes.length) {
    const length = validSequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    flushValid(i);
    out += String.fromCharCode(ESCAPE_BASE + (bytes[i] as number));
    i += 1;
    chunkStart = i;
  }
  flushValid(i);
  return out;
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none. */
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] as number;
  if (b0 < 0x80) return 1;
  const at = (k: number): number => (i + k < bytes.length ? (bytes[i + k] as number) : -1);
  const continuation = (b: number): boolean => b >= 0x80 && b <= 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) return continuation(at(1)) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = at(1);
    // E0 needs A0..BF (no overlongs); ED needs 80..9F (no surrogates).
    const low = b0 === 0xe0 ? 0xa0 : 0x80;
    const high = b0 === 0xed ? 0x9f : 0xbf;
    return b1 >= low && b1 <= high && continuation(at(2)) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = at(1);
    // F0 needs 90..BF (no overlongs); F4 needs 80..8F (nothing above U+10FFFF).
    const low = b0 === 0xf0 ? 0x90 : 0x80;
    const high = b0 === 0xf4 ? 0x8f : 0xbf;
    return b1 >= low && b1 <= high && continuation(at(2)) && continuation(at(3)) ? 4 : 0;
  }
  return 0;
}

function encodeEscaped(text: string): Buffer {
  const parts: Buffer[] = [];
  let chunkStart = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
      continue;
    }
    if (unit >= 0xdc80 && unit <= 0xdcff) {
      if (i > chunkStart) parts.push(Buffer.from(text.slice(chunkStart, i), 'utf8'));
      parts.push(Buffer.of(unit - ESCAPE_BASE));
      chunkStart = i + 1;
    }
  }
  if (chunkStart < text.length) parts.push(Buffer.from(text.slice(chunkStart), 'utf8'));
  return Buffer.concat(parts);
}
