import { RE2JS } from 're2js';

/**
 * Regular expressions with Go's RE2 syntax and semantics (`(?i)`, `(?P<name>…)`, `[[:alnum:]]`,
 * `\A`, `\z`; no lookaround, no backreferences) and RE2's linear-time guarantee: a hostile pattern
 * or input cannot hang the scanner. Backed by re2js, a port of RE2.
 */
export class GoRegex {
  private constructor(
    readonly source: string,
    private readonly compiled: RE2JS,
  ) {}

  /** Compiles `source` or returns the reason it is not valid RE2 syntax. */
  static compile(source: string, options: { caseInsensitive?: boolean } = {}): GoRegex | RegexSyntaxError {
    try {
      const flags = options.caseInsensitive === true ? RE2JS.CASE_INSENSITIVE : 0;
      return new GoRegex(source, RE2JS.compile(source, flags));
    } catch (error) {
      return new RegexSyntaxError(source, error instanceof Error ? error.message : String(error));
    }
  }

  /** Compiles a pattern that must match the whole input (anchored at both ends). */
  static compileWhole(
    source: string,
    options: { caseInsensitive?: boolean } = {},
  ): GoRegex | RegexSyntaxError {
    const checked = GoRegex.compile(source, options);
    if (checked instanceof RegexSyntaxError) return checked;
    const anchored = GoRegex.compile(`\\A(?:${source})\\z`, options);
    return anchored instanceof RegexSyntaxError ? checked : new GoRegex(source, anchored.compiled);
  }

  test(input: string): boolean {
    return this.compiled.test(input);
  }

  /** The first match with its groups, as Go's FindStringSubmatch; undefined when none. */
  find(input: string): RegexMatch | undefined {
    const matcher = this.compiled.matcher(input);
    return matcher.find() ? snapshot(matcher) : undefined;
  }

  /**
   * Successive non-overlapping matches, as Go's FindAllStringSubmatch(input, limit): an empty match
   * right after the previous match is skipped. `limit` < 0 means all.
   */
  findAll(input: string, limit = -1): RegexMatch[] {
    const out: RegexMatch[] = [];
    const matcher = this.compiled.matcher(input);
    let previousEnd = -1;
    while ((limit < 0 || out.length < limit) && matcher.find()) {
      const start = matcher.start();
      const end = matcher.end();
      if (start === end && start === previousEnd) continue;
      previousEnd = end;
      out.push(snapshot(matcher));
    }
    return out;
  }

  get groupCount(): number {
    return this.compiled.groupCount();
  }

  /** Named groups (`(?P<name>…)` or `(?<name>…)`) and their indexes. */
  get namedGroups(): Readonly<Record<string, number>> {
    return this.compiled.namedGroups();
  }
}

export interface RegexMatch {
  readonly start: number;
  readonly end: number;
  /** Group 0 is the whole match; a group that did not take part is undefined. */
  readonly groups: readonly (string | undefined)[];
}

type Re2Matcher = ReturnType<RE2JS['matcher']>;

function snapshot(matcher: Re2Matcher): RegexMatch {
  const groups: (string | undefined)[] = [];
  for (let g = 0; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
  return { start: matcher.start(), end: matcher.end(), groups };
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
