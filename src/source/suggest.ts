import { distance } from 'fastest-levenshtein';

/** The closest known name to a mistyped one, if it is close enough to be a plausible typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(2, Math.floor(word.length / 3));
  return bestDistance <= tolerance ? best : undefined;
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
