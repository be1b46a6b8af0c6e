/** projectdiscovery/dsl's comparisons over several values, and its conversion of a value to a boolean. */
import { goTrimSpace } from '../go-strings.js';
import type { DslValue } from '../value.js';
import { arg, fixed, type HelperFunction, ranged, str, textArg } from './helper.js';

const VARIADIC = Number.POSITIVE_INFINITY;

/** Go's `strconv.ParseBool` words. */
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The dsl library's `toBool`: true, "true", a word ParseBool takes as true, or the number 1. */
export function toBool(value: DslValue): boolean {
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1;
  if (typeof value !== 'string') return false;
  const text = goTrimSpace(value);
  if (TRUE_WORDS.has(text)) return true;
  if (text === '' || FALSE_WORDS.has(text)) return false;
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) && Number(text) === 1;
}

export const checkFunctions: readonly HelperFunction[] = [
  ranged('equals_any', 2, VARIADIC, (args) => {
    const text = textArg(args, 0);
    return args.slice(1).some((value) => str(value) === text);
  }),
  ranged(
    'regex_all',
    2,
    VARIADIC,
    (args, context) => {
      const regex = context.regex(textArg(args, 0), 'regex_all');
      return args.slice(1).every((value) => regex.test(str(value)));
    },
    { regexArgs: [0] },
  ),
  ranged(
    'regex_any',
    2,
    VARIADIC,
    (args, context) => {
      const regex = context.regex(textArg(args, 0), 'regex_any');
      return args.slice(1).some((value) => regex.test(str(value)));
    },
    { regexArgs: [0] },
  ),
  fixed('to_bool', 1, (args) => toBool(arg(args, 0))),
];
