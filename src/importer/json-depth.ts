const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests lists and objects deeper than `limit`, found from the text alone
 * (brackets inside strings do not count), so that a hostile line is refused before `JSON.parse`
 * spends time and memory on it and before anything recursive (`JSON.stringify`, the store) meets it.
 * Strings, most of a result event (requests, responses), are skipped by `indexOf`, not walked.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = afterString(text, i + 1);
      continue;
    }
    if (c === OPEN_LIST || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_LIST || c === CLOSE_OBJECT) depth--;
    i++;
  }
  return false;
}

/** The index after the quote that closes the string whose text starts at `from`. */
function afterString(text: string, from: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}
