/**
 * Go's regexp, through re2js (a line-by-line port of it), as the reference the engines are tested
 * against.
 */
import { RE2JS } from 're2js';
import type { RegexMatch } from '../regex.js';

/**
 * Go's FindAllStringSubmatchIndex through re2js. re2js reads a lone surrogate as a character of its
 * own; Go reads an invalid byte as U+FFFD, so the reference runs on the text with U+FFFD in their
 * place (one UTF-16 unit each) and cuts the groups from the original.
 */
export function referenceFindAll(source: string, text: string, limit = -1, flags = 0): RegexMatch[] {
  const matcher = RE2JS.compile(source, flags).matcher(wellFormed(text));
  const out: RegexMatch[] = [];
  let previousEnd = -1;
  while ((limit < 0 || out.length < limit) && matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    if (start === end && start === previousEnd) continue;
    previousEnd = end;
    const groups: (string | undefined)[] = [];
    for (let g = 0; g <= matcher.groupCount(); g++) {
      const from = matcher.start(g);
      groups.push(from < 0 ? undefined : text.slice(from, matcher.end(g)));
    }
    out.push({ start, end, groups });
  }
  return out;
}

/** Whether the whole text matches, as Go's MatchString of `^(?:source)$`. */
export function referenceMatchesWhole(source: string, text: string): boolean {
  return RE2JS.compile(source).matches(wellFormed(text));
}

export function compilesInGo(source: string): boolean {
  try {
    RE2JS.compile(source);
    return true;
  } catch {
    return false;
  }
}

export const GO_CASE_INSENSITIVE = RE2JS.CASE_INSENSITIVE;

/** Characters whose case folding Go and JavaScript's `i` flag tell apart: k and s with their non-ASCII folds. */
export const FOLDING_LETTERS = ['k', 'K', '\u212a', 's', 'S', '\u017f'] as const;

export function referenceGroupCount(source: string): number {
  return RE2JS.compile(source).groupCount();
}

function wellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}
