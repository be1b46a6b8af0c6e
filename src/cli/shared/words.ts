/** `1 target`, `2 targets`: a count and its noun, for nouns whose plural adds an s. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
