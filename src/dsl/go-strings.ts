/**
 * Go's `strings` package semantics over the language's text form (see bytes.ts): Go works on UTF-8
 * bytes and runes, JavaScript on UTF-16 code units, and a few functions differ in ways templates can
 * observe. Only those differences are handled here; everything else uses the native string methods.
 */
import { bytesToText, isAscii, replaceInvalidBytes, textToBytes } from './bytes.js';

/** Go's strings.ToLower: simple per-rune case mapping; invalid bytes become U+FFFD. */
export function goToLower(text: string): string {
  const source = replaceInvalidBytes(text);
  const lowered = source.toLowerCase();
  // JavaScript applies two mappings Go does not: "İ" → "i̇" (two code points) and the final sigma.
  if (lowered.length === source.length && !source.includes('\u03a3')) return lowered;
  return mapCodePoints(source, (char) => {
    if (char === '\u0130') return 'i';
    if (char === '\u03a3') return '\u03c3';
    return char.toLowerCase();
  });
}

/** Go's strings.ToUpper: simple per-rune case mapping ("ß" stays "ß"); invalid bytes become U+FFFD. */
export function goToUpper(text: string): string {
  const source = replaceInvalidBytes(text);
  const uppered = source.toUpperCase();
  if (uppered.length === source.length) return uppered;
  // Some characters upper-case to several ("ß" → "SS", "ﬁ" → "FI"); Go's simple mapping keeps them.
  return mapCodePoints(source, (char) => {
    const mapped = char.toUpperCase();
    return [...mapped].length === 1 ? mapped : char;
  });
}

function mapCodePoints(text: string, map: (char: string) => string): string {
  let out = '';
  for (const char of text) out += map(char);
  return out;
}

const GO_SPACE = new Set([
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
]);

/** Go's strings.TrimSpace (unicode.IsSpace, which unlike JavaScript's trim keeps U+FEFF). */
export function goTrimSpace(text: string): string {
  return trimWith(text, (char) => GO_SPACE.has(char), true, true);
}

/** Go's strings.Trim / TrimLeft / TrimRight with a cutset of runes. */
export function goTrimCutset(text: string, cutset: string, left: boolean, right: boolean): string {
  if (cutset === '') return text;
  const set = new Set(cutset);
  return trimWith(text, (char) => set.has(char), left, right);
}

function trimWith(text: string, drop: (char: string) => boolean, left: boolean, right: boolean): string {
  let start = 0;
  let end = text.length;
  if (left) {
    while (start < end) {
      const char = charAt(text, start);
      if (!drop(char)) break;
      start += char.length;
    }
  }
  if (right) {
    while (end > start) {
      const char = charBefore(text, end);
      if (!drop(char)) break;
      end -= char.length;
    }
  }
  return text.slice(start, end);
}

function charAt(text: string, index: number): string {
  return String.fromCodePoint(text.codePointAt(index) as number);
}

function charBefore(text: string, end: number): string {
  const last = text.charCodeAt(end - 1);
  if (last >= 0xdc00 && last <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(end - 2, end);
  }
  return text.slice(end - 1, end);
}

const SURROGATE = /[\ud800-\udfff]/;

/** Go's string comparison: byte-wise over UTF-8, which is code point order for valid text. */
export function compareGoStrings(left: string, right: string): number {
  if (!SURROGATE.test(left) && !SURROGATE.test(right)) {
    // Without surrogates UTF-16 code unit order is code point order, hence UTF-8 byte order.
    return left < right ? -1 : left > right ? 1 : 0;
  }
  return Buffer.compare(textToBytes(left), textToBytes(right));
}

/** The runes of `text` as Go's `[]rune(s)` sees them (invalid bytes as U+FFFD). */
export function runes(text: string): string[] {
  return Array.from(replaceInvalidBytes(text));
}

/** Go's `s[start:end]` on byte offsets; undefined when the offsets are out of range. */
export function byteSlice(text: string, start: number, end?: number): string | undefined {
  if (isAscii(text)) {
    const stop = end ?? text.length;
    return start <= stop && stop <= text.length ? text.slice(start, stop) : undefined;
  }
  const bytes = textToBytes(text);
  const stop = end ?? bytes.length;
  if (start > stop || stop > bytes.length) return undefined;
  return bytesToText(bytes.subarray(start, stop));
}
