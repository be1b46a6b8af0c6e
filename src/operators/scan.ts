import { GoRegex, type RegexSyntaxError } from '../regex/index.js';

const META = new Set(['\\', '.', '[', ']', '(', ')', '{', '}', '*', '+', '?', '|', '^', '$']);
const OPTIONAL = new Set(['*', '?', '{']);

/**
 * A Go regex that skips text where it cannot match: every match starts with the pattern's literal
 * prefix, so a corpus without the prefix has no match (nuclei's own short-cut) and scanning may
 * start at the prefix's first occurrence. That start is safe for RE2 semantics because the prefix
 * is plain text: no anchor or word boundary of the pattern looks before it.
 */
export class ScanRegex {
  private constructor(
    readonly regex: GoRegex,
    private readonly prefix: string | undefined,
  ) {}

  static compile(source: string): ScanRegex | RegexSyntaxError {
    const regex = GoRegex.compile(source);
    return regex instanceof GoRegex ? new ScanRegex(regex, literalPrefix(source)) : regex;
  }

  get groupCount(): number {
    return this.regex.groupCount;
  }

  /** Go's FindAllStringSubmatch groups; match positions are not kept. */
  findAllGroups(corpus: string, limit = -1): (readonly (string | undefined)[])[] {
    let text = corpus;
    if (this.prefix !== undefined) {
      const first = corpus.indexOf(this.prefix);
      if (first < 0) return [];
      if (first > 0) text = corpus.slice(first);
    }
    return this.regex.findAll(text, limit).map((match) => match.groups);
  }
}

/** The plain text every match starts with; undefined when the pattern has none or alternates. */
export function literalPrefix(source: string): string | undefined {
  if (source.includes('|')) return undefined;
  let prefix = '';
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (META.has(char)) {
      if (OPTIONAL.has(char)) prefix = prefix.slice(0, -1);
      break;
    }
    prefix += char;
  }
  return prefix === '' ? undefined : prefix;
}
