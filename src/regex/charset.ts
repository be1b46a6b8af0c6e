/**
 * Sets of Unicode code points as sorted, disjoint, non-adjacent inclusive ranges: the characters one
 * step of a pattern can consume.
 */
export type CharSet = readonly (readonly [number, number])[];

export const MAX_CODE_POINT = 0x10ffff;
const SURROGATES: CharSet = [[0xd800, 0xdfff]];
const REPLACEMENT = 0xfffd;

export const EMPTY: CharSet = [];
export const ANY: CharSet = [[0, MAX_CODE_POINT]];

export function single(code: number): CharSet {
  return [[code, code]];
}

export function range(lo: number, hi: number): CharSet {
  return [[lo, hi]];
}

export function union(...sets: CharSet[]): CharSet {
  const all = sets.flat().sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of all) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aLo, aHi] = a[i] as readonly [number, number];
    const [bLo, bHi] = b[j] as readonly [number, number];
    if (aLo <= bHi && bLo <= aHi) return true;
    if (aHi < bHi) i++;
    else j++;
  }
  return false;
}

export function has(set: CharSet, code: number): boolean {
  return set.some(([lo, hi]) => lo <= code && code <= hi);
}

export function isAscii(set: CharSet): boolean {
  return set.every(([, hi]) => hi < 0x80);
}

/**
 * `set` with every ASCII letter's case-folding orbit as Go folds it: the other case, and for k and s
 * the Kelvin sign and the long s. Only for ASCII sets; others have orbits this does not know.
 */
export function foldAscii(set: CharSet): CharSet {
  const extra: [number, number][] = [];
  const letters = (lo: number, hi: number, shift: number): void => {
    for (const [from, to] of set) {
      const a = Math.max(from, lo);
      const b = Math.min(to, hi);
      if (a <= b) extra.push([a + shift, b + shift]);
    }
  };
  letters(0x41, 0x5a, 0x20);
  letters(0x61, 0x7a, -0x20);
  const folded = union(set, extra);
  const orbits: [number, number][] = [];
  if (has(folded, 0x6b)) orbits.push([0x212a, 0x212a]);
  if (has(folded, 0x73)) orbits.push([0x17f, 0x17f]);
  return union(folded, orbits);
}

/**
 * The set as the characters of a JavaScript string with the `u` flag. Keyhole's texts hold each
 * byte that is not UTF-8 as a lone surrogate, which Go reads as U+FFFD: a set takes every lone
 * surrogate exactly when it takes U+FFFD (a set of Go's can hold surrogates, never meet one).
 */
export function asStringCharacters(set: CharSet): CharSet {
  const withoutSurrogates = intersection(set, complement(SURROGATES));
  return has(set, REPLACEMENT) ? union(withoutSurrogates, SURROGATES) : withoutSurrogates;
}

function intersection(a: CharSet, b: CharSet): CharSet {
  return complement(union(complement(a), complement(b)));
}

/** A JavaScript regex atom (`u` flag) for one character of the set. */
export function toJsClass(set: CharSet): string {
  const [only] = set;
  if (set.length === 1 && only !== undefined && only[0] === only[1]) return escapeCode(only[0]);
  const items = set.map(([lo, hi]) => (lo === hi ? escapeCode(lo) : `${escapeCode(lo)}-${escapeCode(hi)}`));
  return `[${items.join('')}]`;
}

function escapeCode(code: number): string {
  const char = String.fromCodePoint(code);
  return /^[A-Za-z0-9_]$/.test(char) ? char : `\\u{${code.toString(16)}}`;
}
