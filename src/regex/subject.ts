/**
 * The text a regex runs over, as the UTF-8 bytes RE2 matches. Texts are JavaScript strings in the
 * form keyhole holds Go's byte strings (see the dsl's bytes.ts): valid UTF-8 as characters, every
 * other byte as a lone surrogate U+DC80–U+DCFF. Go's regexp reads each such byte as U+FFFD, one
 * byte wide; RE2 C++ would not match it at all (not even with `.` or `[^a]`). So a lone surrogate
 * becomes U+FFFD here: one UTF-16 unit for one, hence offsets in the text are unchanged, and what a
 * match covers is cut from the original text, escaped bytes included.
 */

export interface Subject {
  readonly text: string;
  readonly bytes: Buffer;
  /** Only ASCII: byte offsets are string offsets. */
  readonly ascii: boolean;
}

/** Texts this long are converted once and kept for the next regexes over the same text. */
const CACHED_LENGTH = 2048;
const CACHE_SIZE = 4;
const recent: Subject[] = [];

/** The last short text, apart: one host name tried against many secret patterns is converted once. */
let lastShort: Subject | undefined;

/** The bytes of `text`; the last few long texts are remembered, as every regex of a template reads the same part. */
export function subjectOf(text: string): Subject {
  if (text.length < CACHED_LENGTH) {
    if (lastShort?.text !== text) lastShort = convert(text);
    return lastShort;
  }
  for (const subject of recent) if (subject.text === text) return subject;
  const subject = convert(text);
  recent.unshift(subject);
  if (recent.length > CACHE_SIZE) recent.pop();
  return subject;
}

/**
 * Records the UTF-8 bytes `text` was decoded from (a response body), so regexes over the text match
 * those bytes instead of encoding the text again. Texts with escaped bytes are encoded as usual.
 */
export function rememberBytes(text: string, utf8: Uint8Array): void {
  if (text.length < CACHED_LENGTH || !(text as unknown as WellFormed).isWellFormed()) return;
  const bytes = Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength);
  recent.unshift({ text, bytes, ascii: bytes.length === text.length });
  if (recent.length > CACHE_SIZE) recent.pop();
}

function convert(text: string): Subject {
  const bytes = Buffer.from(wellFormed(text), 'utf8');
  // Every character that is not ASCII takes more than one byte.
  return { text, bytes, ascii: bytes.length === text.length };
}

interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

function wellFormed(text: string): string {
  const checked = text as unknown as WellFormed;
  return checked.isWellFormed() ? text : checked.toWellFormed();
}

/** The string offset of a byte offset, counting from a known pair of offsets before it. */
export function unitOffset(subject: Subject, byte: number, fromByte = 0, fromUnit = 0): number {
  if (subject.ascii) return byte;
  const { bytes } = subject;
  let unit = fromUnit;
  for (let i = fromByte; i < byte; i++) {
    const b = bytes[i] as number;
    // A lead byte starts a character: four-byte ones are two UTF-16 units.
    if ((b & 0xc0) !== 0x80) unit += b >= 0xf0 ? 2 : 1;
  }
  return unit;
}

/** The byte offset of a string offset. */
export function byteOffset(subject: Subject, unit: number): number {
  return subject.ascii ? unit : Buffer.byteLength(wellFormed(subject.text.slice(0, unit)), 'utf8');
}

/** The width in bytes of the character starting at `byte` (1 at the end). */
export function charWidth(subject: Subject, byte: number): number {
  const b = subject.bytes[byte];
  if (b === undefined || b < 0xc0) return 1;
  if (b < 0xe0) return 2;
  return b < 0xf0 ? 3 : 4;
}

/** True when `byte` is a continuation byte: the offset falls inside a character. */
export function insideCharacter(subject: Subject, byte: number): boolean {
  const b = subject.bytes[byte];
  return b !== undefined && (b & 0xc0) === 0x80;
}

/** The offset of the first character after `byte`. */
export function nextCharacter(subject: Subject, byte: number): number {
  let next = byte + 1;
  while (insideCharacter(subject, next)) next++;
  return next;
}
