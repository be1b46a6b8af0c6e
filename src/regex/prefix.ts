import { byteOffset, type Subject } from './subject.js';

const META = new Set(['\\', '.', '[', ']', '(', ')', '{', '}', '*', '+', '?', '|', '^', '$']);
const OPTIONAL = new Set(['*', '?', '{']);

/**
 * The ASCII text every match starts with, found without the regex engine: a text without it has no
 * match (nuclei's own short-cut), and matching may start at its first occurrence. That start is safe
 * because the prefix is plain text: no anchor or word boundary of the pattern looks before it.
 * Under `(?i)` each letter stands for its case-folding orbit as Go folds it, which for `k` and `s`
 * includes the Kelvin sign and the long s; RE2 cannot accelerate those, V8 finds them fast.
 */
export class Prefix {
  private readonly needle: Buffer | RegExp;

  constructor(
    readonly text: string,
    readonly folded: boolean,
  ) {
    this.needle = folded ? new RegExp([...text].map(foldClass).join('')) : Buffer.from(text, 'latin1');
  }

  /** The byte offset of the first place a match may start; -1 when none can. */
  firstCandidate(subject: Subject): number {
    if (!(this.needle instanceof RegExp)) return subject.bytes.indexOf(this.needle);
    const found = this.needle.exec(subject.text);
    return found === null ? -1 : byteOffset(subject, found.index);
  }
}

/** The prefix of `source` (after its leading flags), or undefined when none is known. */
export function requiredPrefix(source: string, caseInsensitive: boolean): Prefix | undefined {
  // An alternation anywhere may let a match start otherwise.
  if (source.includes('|')) return undefined;
  let folded = caseInsensitive;
  let rest = source;
  for (let flags = /^\(\?([imsU-]*)\)/.exec(rest); flags !== null; flags = /^\(\?([imsU-]*)\)/.exec(rest)) {
    const [on = '', off = ''] = (flags[1] as string).split('-');
    if (on.includes('i')) folded = true;
    if (off.includes('i')) folded = false;
    rest = rest.slice(flags[0].length);
  }
  const text = literalPrefix(rest);
  return text === undefined ? undefined : new Prefix(text, folded);
}

/** The plain ASCII text a pattern without flags starts with; undefined when there is none. */
export function literalPrefix(source: string): string | undefined {
  let prefix = '';
  for (let i = 0; i < source.length; i++) {
    let char = source[i] as string;
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      // Only escaped punctuation is a literal; other escapes are classes or assertions.
      if (!/^[!-/:-@[-`{-~]$/.test(next)) break;
      char = next;
      i++;
    } else if (META.has(char)) {
      break;
    }
    if (char.charCodeAt(0) >= 0x80) break;
    const quantified = OPTIONAL.has(source[i + 1] ?? '');
    if (quantified) break;
    prefix += char;
  }
  return prefix === '' ? undefined : prefix;
}

/** A JavaScript class for the characters Go's `(?i)` takes `char` for. */
function foldClass(char: string): string {
  const lower = char.toLowerCase();
  const upper = char.toUpperCase();
  if (lower === upper) return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const extra = lower === 'k' ? '\\u212a' : lower === 's' ? '\\u017f' : '';
  return `[${lower}${upper}${extra}]`;
}
