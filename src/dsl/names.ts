import { closest } from '../source/index.js';

/** The closest known name to a mistyped one, when it is close enough to be a plausible typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  return closest(name, candidates);
}
