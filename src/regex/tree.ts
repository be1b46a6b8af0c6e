import {
  ANY,
  type CharSet,
  complement,
  foldAscii,
  isAscii,
  MAX_CODE_POINT,
  range,
  single,
  union,
} from './charset.js';

/**
 * A pattern of Go's syntax as a tree, for the part of the syntax whose meaning this reads exactly:
 * ASCII classes and case folding, any literal character without `(?i)`, `.`, `^ $ \A \z \b \B`, the
 * flags `i m s U`, groups, alternation and repetition. Anything else (Unicode classes, octal
 * escapes, non-ASCII text under `(?i)`...) gives no tree: the pattern stays with RE2.
 * The syntax is known valid (RE2 compiled it); this reading only has to be right, not to explain.
 */
export type Node =
  | { readonly kind: 'char'; readonly set: CharSet }
  | { readonly kind: 'assert'; readonly at: Assertion }
  | { readonly kind: 'concat'; readonly items: readonly Node[] }
  | { readonly kind: 'alternate'; readonly branches: readonly Node[] }
  | {
      readonly kind: 'repeat';
      readonly body: Node;
      readonly min: number;
      readonly max: number;
      readonly greedy: boolean;
    }
  | { readonly kind: 'group'; readonly body: Node; readonly capture: boolean };

export type Assertion =
  | 'textStart'
  | 'textEnd'
  | 'lineStart'
  | 'lineEnd'
  | 'wordBoundary'
  | 'notWordBoundary';

interface Flags {
  readonly foldCase: boolean;
  readonly multiLine: boolean;
  readonly dotNewline: boolean;
  readonly ungreedy: boolean;
}

class Unsupported extends Error {}

/** The tree of `pattern`, or undefined when it uses syntax outside what this reads. */
export function parseTree(pattern: string, foldCase: boolean): Node | undefined {
  if (!(pattern as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
  try {
    return new TreeParser(pattern, foldCase).parse();
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

const WORD = union(range(0x30, 0x39), range(0x41, 0x5a), single(0x5f), range(0x61, 0x7a));
const PERL_CLASSES: Readonly<Record<string, CharSet>> = {
  d: range(0x30, 0x39),
  s: union(range(0x09, 0x0a), range(0x0c, 0x0d), single(0x20)),
  w: WORD,
};
const POSIX_CLASSES: Readonly<Record<string, CharSet>> = {
  alnum: union(range(0x30, 0x39), range(0x41, 0x5a), range(0x61, 0x7a)),
  alpha: union(range(0x41, 0x5a), range(0x61, 0x7a)),
  ascii: range(0, 0x7f),
  blank: union(single(0x09), single(0x20)),
  cntrl: union(range(0, 0x1f), single(0x7f)),
  digit: range(0x30, 0x39),
  graph: range(0x21, 0x7e),
  lower: range(0x61, 0x7a),
  print: range(0x20, 0x7e),
  punct: union(range(0x21, 0x2f), range(0x3a, 0x40), range(0x5b, 0x60), range(0x7b, 0x7e)),
  space: union(range(0x09, 0x0d), single(0x20)),
  upper: range(0x41, 0x5a),
  word: WORD,
  xdigit: union(range(0x30, 0x39), range(0x41, 0x46), range(0x61, 0x66)),
};
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const LINE_FEED = single(0x0a);

class TreeParser {
  private i = 0;
  private flags: Flags;

  constructor(
    private readonly source: string,
    foldCase: boolean,
  ) {
    this.flags = { foldCase, multiLine: false, dotNewline: false, ungreedy: false };
  }

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.source.length) throw new Unsupported();
    return node;
  }

  /** Branches up to a `)` or the end; inline flags last to the end of the enclosing group. */
  private alternation(): Node {
    const branches = [this.concatenation()];
    while (this.source[this.i] === '|') {
      this.i++;
      branches.push(this.concatenation());
    }
    return branches.length === 1 ? (branches[0] as Node) : { kind: 'alternate', branches };
  }

  private concatenation(): Node {
    const items: Node[] = [];
    for (let char = this.source[this.i]; char !== undefined && char !== '|' && char !== ')'; ) {
      const atom = this.atom();
      if (atom !== undefined) items.push(this.repetitions(atom));
      char = this.source[this.i];
    }
    return items.length === 1 ? (items[0] as Node) : { kind: 'concat', items };
  }

  /** The atom at `i`, or undefined for an inline flag group, which only changes the flags. */
  private atom(): Node | undefined {
    const char = this.peek();
    switch (char) {
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', set: this.characterClass() };
      case '.':
        this.i++;
        return { kind: 'char', set: this.flags.dotNewline ? ANY : complement(LINE_FEED) };
      case '^':
        this.i++;
        return { kind: 'assert', at: this.flags.multiLine ? 'lineStart' : 'textStart' };
      case '$':
        this.i++;
        return { kind: 'assert', at: this.flags.multiLine ? 'lineEnd' : 'textEnd' };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        throw new Unsupported();
      default:
        this.i += char.length;
        return { kind: 'char', set: this.literal(char.codePointAt(0) as number) };
    }
  }

  /** `sticky` matched at `i` (not consumed), or null. */
  private match(sticky: RegExp): RegExpExecArray | null {
    sticky.lastIndex = this.i;
    return sticky.exec(this.source);
  }

  /** The character at `i`, a whole code point. */
  private peek(): string {
    const code = this.source.codePointAt(this.i);
    if (code === undefined) throw new Unsupported();
    return String.fromCodePoint(code);
  }

  private literal(code: number): CharSet {
    return this.folded(single(code));
  }

  private folded(set: CharSet): CharSet {
    if (!this.flags.foldCase) return set;
    if (!isAscii(set)) throw new Unsupported();
    return foldAscii(set);
  }

  private group(): Node | undefined {
    const { source } = this;
    this.i++;
    let capture = true;
    if (source[this.i] === '?') {
      const named = this.match(/\?P<[A-Za-z0-9_]+>/y);
      if (named !== null) {
        this.i += named[0].length;
      } else {
        const flags = this.match(/\?([imsU]*(?:-[imsU]*)?)([:)])/y);
        if (flags === null) throw new Unsupported();
        this.i += flags[0].length;
        const changed = this.withFlags(flags[1] as string);
        if (flags[2] === ')') {
          this.flags = changed;
          return undefined;
        }
        capture = false;
        const outer = this.flags;
        this.flags = changed;
        const body = this.closeGroup();
        this.flags = outer;
        return { kind: 'group', body, capture };
      }
    }
    const outer = this.flags;
    const body = this.closeGroup();
    this.flags = outer;
    return { kind: 'group', body, capture };
  }

  private closeGroup(): Node {
    const body = this.alternation();
    if (this.source[this.i] !== ')') throw new Unsupported();
    this.i++;
    return body;
  }

  private withFlags(spec: string): Flags {
    const [on = '', off = ''] = spec.split('-');
    const value = (letter: string, current: boolean): boolean =>
      off.includes(letter) ? false : on.includes(letter) ? true : current;
    return {
      foldCase: value('i', this.flags.foldCase),
      multiLine: value('m', this.flags.multiLine),
      dotNewline: value('s', this.flags.dotNewline),
      ungreedy: value('U', this.flags.ungreedy),
    };
  }

  /** `*`, `+`, `?` and `{n,m}` after an atom, each optionally lazy; a second one is left to RE2. */
  private repetitions(atom: Node): Node {
    const bounds = this.repetitionBounds();
    if (bounds === undefined) return atom;
    let greedy = true;
    if (this.source[this.i] === '?') {
      greedy = false;
      this.i++;
    }
    if (this.repetitionBounds() !== undefined) throw new Unsupported();
    const [min, max] = bounds;
    return { kind: 'repeat', body: atom, min, max, greedy: greedy !== this.flags.ungreedy };
  }

  /** The bounds of the repetition at `i` (consumed), or undefined when there is none. */
  private repetitionBounds(): [number, number] | undefined {
    const char = this.source[this.i];
    if (char === '*' || char === '+' || char === '?') {
      this.i++;
      return char === '*' ? [0, Infinity] : char === '+' ? [1, Infinity] : [0, 1];
    }
    if (char !== '{') return undefined;
    // Anything else after `{` is a literal brace in Go.
    const counted = this.match(/\{(\d+)(,(\d*))?\}/y);
    if (counted === null) return undefined;
    this.i += counted[0].length;
    const min = Number(counted[1]);
    const max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
    return [min, max];
  }

  private escape(): Node {
    const next = this.source[this.i + 1];
    if (next === undefined) throw new Unsupported();
    const assertions: Readonly<Record<string, Assertion>> = {
      A: 'textStart',
      z: 'textEnd',
      b: 'wordBoundary',
      B: 'notWordBoundary',
    };
    const at = assertions[next];
    if (at !== undefined) {
      this.i += 2;
      return { kind: 'assert', at };
    }
    return { kind: 'char', set: this.classEscape() };
  }

  /** An escape standing for characters (`\d`, `\x{41}`, `\.`...), consumed; as in or out of a class. */
  private classEscape(): CharSet {
    const next = this.source[this.i + 1] ?? '';
    const perl = PERL_CLASSES[next.toLowerCase()];
    if (perl !== undefined) {
      this.i += 2;
      return this.classOf(perl, next !== next.toLowerCase());
    }
    return this.literal(this.escapedCode());
  }

  /** The code point of a single-character escape at `i`, consumed. */
  private escapedCode(): number {
    const next = this.source[this.i + 1] ?? '';
    const control = CONTROL_ESCAPES[next];
    if (control !== undefined) {
      this.i += 2;
      return control;
    }
    if (next === 'x') {
      const hex = this.match(/\\x(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2}))/y);
      if (hex === null) throw new Unsupported();
      this.i += hex[0].length;
      const code = Number.parseInt((hex[1] ?? hex[2]) as string, 16);
      if (code > MAX_CODE_POINT) throw new Unsupported();
      return code;
    }
    if (!PUNCTUATION.test(next)) throw new Unsupported();
    this.i += 2;
    return next.charCodeAt(0);
  }

  /** A class of Go's (Perl or POSIX), folded under `(?i)` before it is negated, as Go does. */
  private classOf(set: CharSet, negated: boolean): CharSet {
    const folded = this.folded(set);
    return negated ? complement(folded) : folded;
  }

  private characterClass(): CharSet {
    const { source } = this;
    this.i++;
    const negated = source[this.i] === '^';
    if (negated) this.i++;
    const parts: CharSet[] = [];
    for (let first = true; first || source[this.i] !== ']'; first = false) {
      if (this.i >= source.length) throw new Unsupported();
      parts.push(this.classItem());
    }
    this.i++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  /** One item of a class: a POSIX class, an escape class, a character or a range. */
  private classItem(): CharSet {
    const { source } = this;
    const posix = this.match(/\[:(\^?)([a-z]+):\]/y);
    if (posix !== null) {
      const set = POSIX_CLASSES[posix[2] as string];
      if (set === undefined) throw new Unsupported();
      this.i += posix[0].length;
      return this.classOf(set, posix[1] === '^');
    }
    if (source[this.i] === '\\' && PERL_CLASSES[(source[this.i + 1] ?? '').toLowerCase()] !== undefined) {
      return this.classEscape();
    }
    const lo = this.classCharacter();
    if (source[this.i] === '-' && source[this.i + 1] !== ']' && this.i + 1 < source.length) {
      this.i++;
      const hi = this.classCharacter();
      if (hi < lo) throw new Unsupported();
      return this.folded(range(lo, hi));
    }
    return this.folded(single(lo));
  }

  private classCharacter(): number {
    if (this.source[this.i] === '\\') return this.escapedCode();
    const char = this.peek();
    this.i += char.length;
    return char.codePointAt(0) as number;
  }
}
