/**
 * Go's regexp syntax, made safe for RE2 C++ behind the `re2` binding. The two parsers agree on nearly
 * everything (they share their design); where they differ, Go's answer wins:
 *
 * - RE2 C++ accepts `\C` (any byte); Go refuses it.
 * - The binding rewrites JavaScript-isms before RE2 sees them — `\uXXXX`, `\cX`, long Unicode class
 *   names (`\p{Letter}`, `\p{Script=Greek}`), `(?<` inside a character class, and `/` even inside
 *   `\Q…\E` — so patterns Go refuses would compile and literal text would change. Go's refusals are
 *   reported here, `\Q…\E` becomes escaped literals and `(` in a class is escaped, so the binding's
 *   rewriting never applies.
 * - RE2 C++ allows non-ASCII group names; Go allows only letters, digits and `_` of ASCII.
 *
 * The same pass counts capturing groups and collects their names, which the binding does not expose.
 */

export interface GoPattern {
  /** The pattern to give the binding. */
  readonly pattern: string;
  readonly groupCount: number;
  readonly namedGroups: Readonly<Record<string, number>>;
}

/** Unicode class names the binding rewrites to short ones; Go knows only the short ones. */
const LONG_CLASS_NAMES = new Set([
  'Uppercase_Letter',
  'Lowercase_Letter',
  'Titlecase_Letter',
  'Cased_Letter',
  'Modifier_Letter',
  'Other_Letter',
  'Letter',
  'Nonspacing_Mark',
  'Spacing_Mark',
  'Enclosing_Mark',
  'Mark',
  'Decimal_Number',
  'Letter_Number',
  'Other_Number',
  'Number',
  'Connector_Punctuation',
  'Dash_Punctuation',
  'Open_Punctuation',
  'Close_Punctuation',
  'Initial_Punctuation',
  'Final_Punctuation',
  'Other_Punctuation',
  'Punctuation',
  'Math_Symbol',
  'Currency_Symbol',
  'Modifier_Symbol',
  'Other_Symbol',
  'Symbol',
  'Space_Separator',
  'Line_Separator',
  'Paragraph_Separator',
  'Separator',
  'Control',
  'Format',
  'Surrogate',
  'Private_Use',
  'Unassigned',
  'Other',
]);

/** Escapes Go refuses and RE2 C++ (or the binding) would accept. */
const REFUSED_ESCAPES = new Set(['C', 'u', 'c']);

/** Escapes that stand for a class of characters inside a class, never a range's end. */
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'p', 'P']);

export class GoSyntaxError extends Error {}

/** Checks `source` against Go's syntax where RE2 C++ differs and returns the pattern for the binding. */
export function goPattern(source: string): GoPattern | GoSyntaxError {
  try {
    return new PatternScanner(source).scan();
  } catch (error) {
    if (error instanceof GoSyntaxError) return error;
    throw error;
  }
}

class PatternScanner {
  private i = 0;
  private out = '';
  private groupCount = 0;
  private readonly namedGroups: Record<string, number> = Object.create(null);

  constructor(private readonly source: string) {}

  scan(): GoPattern {
    const { source } = this;
    while (this.i < source.length) {
      const char = source[this.i] as string;
      if (char === '\\') this.escape(false);
      else if (char === '[') this.characterClass();
      else if (char === '(') this.group();
      else {
        this.out += char;
        this.i++;
      }
    }
    return { pattern: this.out, groupCount: this.groupCount, namedGroups: this.namedGroups };
  }

  /** An escape at `i`; `\Q…\E` only outside a class (inside one, RE2 refuses it as Go does). */
  private escape(inClass: boolean): void {
    const next = this.source[this.i + 1];
    if (next === undefined) {
      // A trailing backslash: RE2 reports it.
      this.out += '\\';
      this.i++;
      return;
    }
    if (next === 'Q' && !inClass) {
      this.quoted();
      return;
    }
    if (REFUSED_ESCAPES.has(next)) throw new GoSyntaxError(`invalid escape sequence: \`\\${next}\``);
    if (next === 'p' || next === 'P') this.checkClassName(next);
    this.out += `\\${next}`;
    this.i += 2;
  }

  /** `\Q…\E` (or to the end): each character as a literal. */
  private quoted(): void {
    const start = this.i + 2;
    const end = this.source.indexOf('\\E', start);
    const text = this.source.slice(start, end < 0 ? undefined : end);
    for (const char of text) this.out += literal(char);
    this.i = end < 0 ? this.source.length : end + 2;
  }

  private checkClassName(letter: string): void {
    // Go takes the character after `\p` as the class's one-letter name: a backslash there names
    // no class, where RE2 would read it as the start of the next escape (`\p\QN` as `\pN`).
    if (this.source[this.i + 2] === '\\')
      throw new GoSyntaxError(`invalid character class range: \`\\${letter}\\\``);
    if (this.source[this.i + 2] !== '{') return;
    const close = this.source.indexOf('}', this.i + 3);
    if (close < 0) return;
    const name = this.source.slice(this.i + 3, close).replace(/^\^/, '');
    if (LONG_CLASS_NAMES.has(name) || name.startsWith('Script=') || name.startsWith('sc=')) {
      throw new GoSyntaxError(
        `invalid character class range: \`\\${letter}{${this.source.slice(this.i + 3, close)}}\``,
      );
    }
  }

  /**
   * A bracketed class, copied with `(` escaped; `]` first (after `[` or `[^`) is a literal. As in
   * Go, a range's upper end is one character: in `[*-[:alpha:]]` the range is `*-[` and the `]`
   * after `:alpha:` closes the class, where a `[:alpha:]` anywhere else is a POSIX class.
   */
  private characterClass(): void {
    const { source } = this;
    this.out += '[';
    this.i++;
    if (source[this.i] === '^') {
      this.out += '^';
      this.i++;
    }
    if (source[this.i] === ']') {
      this.out += ']';
      this.i++;
    }
    let upperEnd = false;
    while (this.i < source.length) {
      const char = source[this.i] as string;
      if (char === ']') {
        this.out += ']';
        this.i++;
        return;
      }
      const inRange = upperEnd;
      upperEnd = false;
      if (char === '[' && source[this.i + 1] === ':' && !inRange) {
        this.posixClass();
        continue;
      }
      const single = char !== '\\' || !CLASS_ESCAPES.has(source[this.i + 1] ?? '');
      if (char === '\\') this.classEscape();
      else {
        this.out += char === '(' ? '\\(' : char;
        this.i++;
      }
      // A single character (not a range's upper end) followed by `-` and anything but `]` starts a range.
      if (single && !inRange && source[this.i] === '-' && (source[this.i + 1] ?? ']') !== ']') {
        this.out += '-';
        this.i++;
        upperEnd = true;
      }
    }
  }

  /** An escape inside a class; `\p`'s and `\P`'s name (`L`, `{Greek}`) copied with it. */
  private classEscape(): void {
    const letter = this.source[this.i + 1];
    this.escape(true);
    if ((letter !== 'p' && letter !== 'P') || this.i >= this.source.length) return;
    const close = this.source[this.i] === '{' ? this.source.indexOf('}', this.i) : this.i;
    const end = close < 0 ? this.source.length : close + 1;
    this.out += this.source.slice(this.i, end);
    this.i = end;
  }

  /** `[:alpha:]` inside a class, copied whole (its `]` does not close the class). */
  private posixClass(): void {
    const close = this.source.indexOf(':]', this.i + 2);
    if (close < 0) {
      this.out += '[';
      this.i++;
      return;
    }
    this.out += this.source.slice(this.i, close + 2);
    this.i = close + 2;
  }

  private group(): void {
    const { source } = this;
    if (source[this.i + 1] !== '?') {
      this.groupCount++;
      this.out += '(';
      this.i++;
      return;
    }
    // Like Go, anything starting `(?<` is a name, so a lookbehind is refused as a bad name.
    const named = /^\(\?P?</.exec(source.slice(this.i, this.i + 4));
    if (named === null) {
      this.out += '(?';
      this.i += 2;
      return;
    }
    const nameStart = this.i + named[0].length;
    const close = source.indexOf('>', nameStart);
    if (close < 0) throw new GoSyntaxError(`invalid named capture: \`${source.slice(this.i)}\``);
    const name = source.slice(nameStart, close);
    if (!/^[A-Za-z0-9_]+$/.test(name)) {
      throw new GoSyntaxError(`invalid named capture: \`${source.slice(this.i, close + 1)}\``);
    }
    if (Object.hasOwn(this.namedGroups, name))
      throw new GoSyntaxError(`duplicate capture group name: \`${name}\``);
    this.groupCount++;
    this.namedGroups[name] = this.groupCount;
    this.out += `(?P<${name}>`;
    this.i = close + 1;
  }
}

/** A character as a literal of RE2 syntax. */
function literal(char: string): string {
  if (/^[A-Za-z0-9_]$/.test(char)) return char;
  const code = char.codePointAt(0) as number;
  if (code < 0x80) return `\\x{${code.toString(16)}}`;
  return char;
}
