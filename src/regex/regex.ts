import RE2 from 're2';
import { BacktrackingRegex } from './backtracking.js';
import { type Prefix, requiredPrefix } from './prefix.js';
import { charWidth, insideCharacter, nextCharacter, type Subject, subjectOf, unitOffset } from './subject.js';
import { type GoPattern, GoSyntaxError, goPattern } from './syntax.js';

/** Texts shorter than this are matched without the search for a literal prefix. */
const SHORT_TEXT = 2048;
/**
 * Texts this long go to V8's engine when the pattern is safe on it. On a shorter text a search
 * costs little on either engine, and V8 compiles a regex on its first two uses (~80 µs measured),
 * which the thousands of host patterns of a secret file, each tried once per new host, would pay.
 */
const V8_TEXT_LENGTH = 2048;

/**
 * Regular expressions with Go's RE2 syntax and semantics (`(?i)`, `(?P<name>…)`, `[[:alnum:]]`,
 * `\A`, `\z`; no lookaround, no backreferences) and RE2's linear-time guarantee: a hostile pattern
 * or input cannot hang the scanner. Backed by RE2 C++ through the `re2` binding, matching the
 * text's UTF-8 bytes; where RE2 C++ and Go differ (syntax, invalid UTF-8, FindAll's empty
 * matches), Go's answer is kept. A pattern proven linear under backtracking, whose meaning V8's
 * RegExp can say exactly, runs on V8's engine instead (see backtracking.ts): a call to the binding
 * costs several times a whole search of V8's when the match is near.
 */
export class GoRegex {
  private finder: RE2 | undefined;
  /** V8's regex, once a long text asked for it; false when the pattern is not proven safe. */
  private backtracking: BacktrackingRegex | false | undefined;

  private constructor(
    readonly source: string,
    private readonly parsed: GoPattern,
    private readonly flags: string,
    private readonly tester: RE2,
    private readonly prefix: Prefix | undefined,
    private readonly engines: Engines,
  ) {
    if (engines === 're2') this.backtracking = false;
  }

  /** Compiles `source` or returns the reason it is not valid Go RE2 syntax. */
  static compile(source: string, options: CompileOptions = {}): GoRegex | RegexSyntaxError {
    const caseInsensitive = options.caseInsensitive === true;
    return GoRegex.build(source, options, (pattern) => pattern, requiredPrefix(source, caseInsensitive));
  }

  /** Compiles a pattern that must match the whole input (anchored at both ends). */
  static compileWhole(source: string, options: CompileOptions = {}): GoRegex | RegexSyntaxError {
    // Around the checked pattern, whose \Q…\E is literals by then, so the end anchor stays an anchor.
    const whole = GoRegex.build(source, options, (pattern) => `\\A(?:${pattern})\\z`, undefined);
    if (whole instanceof GoRegex) return whole;
    // The pattern's own error reads better than the anchored form's; never unanchored, though.
    const plain = GoRegex.compile(source, options);
    return plain instanceof RegexSyntaxError ? plain : whole;
  }

  private static build(
    source: string,
    options: CompileOptions,
    wrap: (pattern: string) => string,
    prefix: Prefix | undefined,
  ): GoRegex | RegexSyntaxError {
    const parsed = goPattern(source);
    if (parsed instanceof GoSyntaxError) return new RegexSyntaxError(source, parsed.message);
    const caseInsensitive = options.caseInsensitive === true;
    const flags = caseInsensitive ? 'iu' : 'u';
    const wrapped = { ...parsed, pattern: wrap(parsed.pattern) };
    try {
      const tester = new RE2(wrapped.pattern, flags);
      return new GoRegex(source, wrapped, flags, tester, prefix, options.engines ?? 'auto');
    } catch (error) {
      return new RegexSyntaxError(source, goReason(error instanceof Error ? error.message : String(error)));
    }
  }

  /** The engine for long texts: V8's for the patterns proven safe on it, RE2 for the rest. */
  get engine(): 'v8' | 're2' {
    return this.v8() === undefined ? 're2' : 'v8';
  }

  /** V8's regex when it should search `input`. */
  private v8For(input: string): BacktrackingRegex | undefined {
    if (this.engines === 'auto' && input.length < V8_TEXT_LENGTH) return undefined;
    return this.v8();
  }

  private v8(): BacktrackingRegex | undefined {
    if (this.backtracking === undefined) {
      this.backtracking = BacktrackingRegex.of(this.parsed.pattern, this.flags.includes('i')) ?? false;
    }
    return this.backtracking === false ? undefined : this.backtracking;
  }

  test(input: string): boolean {
    const quick = this.v8For(input)?.test(input);
    if (quick !== undefined) return quick;
    if (this.source.includes('\\B')) return this.find(input) !== undefined;
    const subject = subjectOf(input);
    if (this.prefix === undefined || input.length < SHORT_TEXT) return this.tester.test(subject.bytes);
    const from = this.prefix.firstCandidate(subject);
    if (from < 0) return false;
    // Starting at the prefix spares RE2 the text already passed, unless it is too short to matter.
    return this.tester.test(from < SHORT_TEXT ? subject.bytes : subject.bytes.subarray(from));
  }

  /** The first match with its groups, as Go's FindStringSubmatch; undefined when none. */
  find(input: string): RegexMatch | undefined {
    return this.findAll(input, 1)[0];
  }

  /**
   * Successive non-overlapping matches, as Go's FindAllStringSubmatch(input, limit): an empty match
   * right after the previous match is skipped. `limit` < 0 means all.
   */
  findAll(input: string, limit = -1): RegexMatch[] {
    const quick = this.v8For(input)?.findAll(input, limit);
    if (quick !== undefined) return quick;
    const subject = subjectOf(input);
    const out: RegexMatch[] = [];
    let position = this.prefix === undefined ? 0 : this.prefix.firstCandidate(subject);
    if (position < 0) return out;
    const finder = this.finderRegex();
    const cursor = { byte: 0, unit: 0 };
    let previousEnd = -1;
    while ((limit < 0 || out.length < limit) && position <= subject.bytes.length) {
      finder.lastIndex = position;
      const found = finder.exec(subject.bytes) as unknown as IndexedMatch | null;
      if (found === null) break;
      const [start, end] = found.indices[0];
      if (start === end && insideCharacter(subject, start)) {
        // RE2 C++ tries every byte, Go every character: `\B` holds inside a multi-byte character.
        position = nextCharacter(subject, start);
        continue;
      }
      // Go steps over an empty match by one character, and skips one right after a match.
      const accepted = !(end === position && start === previousEnd);
      position = end === position ? position + charWidth(subject, position) : end;
      previousEnd = end;
      if (accepted) out.push(matchOf(subject, found.indices, cursor));
    }
    return out;
  }

  get groupCount(): number {
    return this.parsed.groupCount;
  }

  /** Named groups (`(?P<name>…)` or `(?<name>…)`) and their indexes. */
  get namedGroups(): Readonly<Record<string, number>> {
    return this.parsed.namedGroups;
  }

  /** The regex that reports offsets and starts where told; made when first needed (most regexes only test). */
  private finderRegex(): RE2 {
    this.finder ??= new RE2(this.parsed.pattern, `gd${this.flags}`);
    return this.finder;
  }
}

export interface CompileOptions {
  readonly caseInsensitive?: boolean;
  /** Which engines may search; 're2' and 'v8' (V8 whatever the text's length) compare the two. */
  readonly engines?: Engines;
}

/** RE2 alone; V8 on long texts when the pattern is safe on it; V8 on every text when safe. */
type Engines = 're2' | 'auto' | 'v8';

/** What the binding returns with the `d` flag on bytes: byte offsets of every group. */
interface IndexedMatch {
  readonly indices: readonly ([number, number] | undefined)[] & { readonly 0: [number, number] };
}

export interface RegexMatch {
  readonly start: number;
  readonly end: number;
  /** Group 0 is the whole match; a group that did not take part is undefined. */
  readonly groups: readonly (string | undefined)[];
}

/**
 * A match in string offsets, its groups cut from the original text. `cursor` is the last known pair
 * of byte and string offsets, so a text with non-ASCII characters is counted once, not per match.
 */
function matchOf(
  subject: Subject,
  indices: IndexedMatch['indices'],
  cursor: { byte: number; unit: number },
): RegexMatch {
  const [startByte, endByte] = indices[0];
  const start = unitOffset(subject, startByte, cursor.byte, cursor.unit);
  const unitAt = (byte: number): number => unitOffset(subject, byte, startByte, start);
  const end = unitAt(endByte);
  const groups = indices.map((pair) =>
    pair === undefined ? undefined : subject.text.slice(unitAt(pair[0]), unitAt(pair[1])),
  );
  cursor.byte = startByte;
  cursor.unit = start;
  return { start, end, groups };
}

/** RE2 C++'s words for a syntax error and Go's, which nuclei users know. */
const GO_REASONS: Readonly<Record<string, string>> = {
  'missing )': 'missing closing )',
  'missing ]': 'missing closing ]',
  'trailing \\': 'trailing backslash at end of expression',
  'no argument for repetition operator': 'missing argument to repetition operator',
  'invalid repetition size': 'invalid repeat count',
  'bad repetition operator': 'invalid nested repetition operator',
  'invalid perl operator': 'invalid or unsupported Perl syntax',
  'invalid named capture group': 'invalid named capture',
};

/** `reason: part` of RE2 C++ as Go writes it: ``reason: `part` ``. */
function goReason(re2Reason: string): string {
  const colon = re2Reason.indexOf(': ');
  if (colon < 0) return GO_REASONS[re2Reason] ?? re2Reason;
  const reason = re2Reason.slice(0, colon);
  return `${GO_REASONS[reason] ?? reason}: \`${re2Reason.slice(colon + 2)}\``;
}

export class RegexSyntaxError {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {}

  get message(): string {
    return `invalid regular expression ${JSON.stringify(this.source)}: ${this.reason.replace(/^error parsing regexp: /, '')}`;
  }
}
