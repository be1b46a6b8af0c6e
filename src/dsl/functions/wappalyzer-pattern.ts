/**
 * One pattern of a technology fingerprint, as wappalyzergo reads it: a regular expression, then
 * optional `\;confidence:N` and `\;version:…` parts. The regex is Go RE2 syntax, case-insensitive,
 * and runs on keyhole's linear-time engine; an empty regex matches anything (the header, cookie or
 * meta tag being present is the evidence).
 */
import { GoRegex } from '../../regex/index.js';

export interface FingerprintPattern {
  /** Undefined when the pattern is only the presence of what it is attached to. */
  readonly regex: GoRegex | undefined;
  readonly confidence: number;
  /** The version template: `\1`… stand for the regex's groups. */
  readonly version: string;
}

export interface PatternMatch {
  readonly confidence: number;
  readonly version: string;
}

/** wappalyzergo bounds unbounded repeats, except in its two version-capture idioms, which it bounds its own way. */
const VERSION_CAPTURES: readonly (readonly [string, string, string])[] = [
  ['(\\d+(?:\\.\\d+)+)', '\u0000versionCapture1\u0000', '(\\d{1,20}(?:\\.\\d{1,20}){1,20})'],
  ['((?:\\d+\\.)+\\d+)', '\u0000versionCapture2\u0000', '((?:\\d{1,20}\\.){1,20}\\d{1,20})'],
];
const ESCAPED_PLUS = '\u0000escapedPlus\u0000';

/** The regex text wappalyzergo compiles: every `+` and `*` bounded to 250 repeats, as it does. */
function boundedRepeats(source: string): string {
  let text = source;
  for (const [idiom, placeholder] of VERSION_CAPTURES) text = text.replaceAll(idiom, placeholder);
  text = text
    .replaceAll('\\+', ESCAPED_PLUS)
    .replaceAll('+', '{1,250}')
    .replaceAll('*', '{0,250}')
    .replaceAll(ESCAPED_PLUS, '\\+');
  for (const [, placeholder, bounded] of VERSION_CAPTURES) text = text.replaceAll(placeholder, bounded);
  return text;
}

/** The pattern, or undefined when its regex does not compile (wappalyzergo skips those too). */
export function parsePattern(text: string): FingerprintPattern | undefined {
  const [source = '', ...options] = text.split('\\;');
  let confidence = 100;
  let version = '';
  for (const option of options) {
    const colon = option.indexOf(':');
    if (colon < 0) continue;
    const key = option.slice(0, colon);
    const value = option.slice(colon + 1);
    if (key === 'confidence') confidence = /^[-+]?\d+$/.test(value) ? Number.parseInt(value, 10) : 100;
    else if (key === 'version') version = value;
  }
  if (source === '') return { regex: undefined, confidence, version };
  const regex = GoRegex.compile(`(?i)${boundedRepeats(source)}`);
  if (!(regex instanceof GoRegex)) return undefined;
  return { regex, confidence, version };
}

/** Whether the pattern matches `text`, and the version it gives; undefined when it does not match. */
export function evaluatePattern(pattern: FingerprintPattern, text: string): PatternMatch | undefined {
  if (pattern.regex === undefined) return { confidence: pattern.confidence, version: '' };
  const found = pattern.regex.find(text);
  if (found === undefined) return undefined;
  return { confidence: pattern.confidence, version: versionOf(pattern.version, found.groups.slice(1)) };
}

/** The version template with the groups put in, its `a?b:c` form resolved as wappalyzergo does. */
function versionOf(template: string, groups: readonly (string | undefined)[]): string {
  let result = template;
  groups.forEach((group, i) => {
    result = result.replaceAll(`\\${i + 1}`, group ?? '');
  });
  return ternary(result, groups.length).trim();
}

/**
 * wappalyzergo's reading of `\1?yes:no`: with a non-empty "yes", the answer is "yes" whenever the
 * regex has groups; otherwise "no". A malformed form gives no version.
 */
function ternary(expression: string, groupCount: number): string {
  if (!expression.includes('?')) return expression;
  const parts = expression.split('?');
  if (parts.length !== 2) return '';
  const choices = (parts[1] as string).split(':');
  if (choices.length !== 2) return '';
  const [yes, no] = choices as [string, string];
  if (yes !== '') return groupCount === 0 ? no : yes;
  if (no === '') return groupCount === 0 ? '' : yes;
  return no;
}
