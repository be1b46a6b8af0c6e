/**
 * The engine against re2js, a line-by-line port of Go's regexp, on random patterns of a small
 * grammar and random texts with non-ASCII characters and bytes that are not UTF-8.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoRegex } from './regex.js';
import {
  compilesInGo,
  FOLDING_LETTERS,
  GO_CASE_INSENSITIVE,
  referenceFindAll,
  referenceGroupCount,
  referenceMatchesWhole,
} from './testing/go-reference.js';

const atom = fc.constantFrom(
  'a',
  'b',
  'k',
  's',
  'S',
  'é',
  'ü',
  '😀',
  ' ',
  '.',
  '\\.',
  '\\x{FFFD}',
  '[ab]',
  '[^a]',
  '[a-zé]',
  '\\d',
  '\\w',
  '\\W',
  '\\s',
  '\\pL',
  '\\PL',
  '\\p{Greek}',
  '[[:alpha:]]',
  '\\b',
  '\\B',
  '^',
  '$',
  '\\A',
  '\\z',
  '\\Qa.\\E',
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '*?', '+?', '{1,2}', '{2}');
const flags = fc.constantFrom('', '', '(?i)', '(?m)', '(?s)', '(?U)', '(?is)', '(?i)(?m)');
const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
const sequence = fc.array(piece, { minLength: 1, maxLength: 4 }).map((pieces) => pieces.join(''));
const grouped = fc.oneof(
  sequence,
  sequence.map((s) => `(${s})`),
  sequence.map((s) => `(?:${s})*`),
  sequence.map((s) => `(?P<n>${s})`),
  fc.tuple(sequence, sequence).map(([x, y]) => `${x}|${y}`),
  fc.tuple(sequence, sequence).map(([x, y]) => `(${x})?(${y})`),
);
const pattern = fc
  .tuple(flags, grouped, fc.array(grouped, { maxLength: 2 }))
  .map(([f, g, rest]) => f + g + rest.join(''));
const text = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      'A',
      ...FOLDING_LETTERS,
      'é',
      'É',
      'ü',
      'α',
      'Ω',
      '😀',
      '1',
      ' ',
      '.',
      '\n',
      '\udcff',
      '\udc80',
      '\ufffd',
    ),
    { maxLength: 24 },
  )
  .map((chars) => chars.join(''));

describe('GoRegex against re2js (Go’s regexp)', () => {
  it.each([
    // A range's upper end is one character: `*-[`, then `:alpha:` and the `]` that closes the class.
    '[*-[:alpha:](?',
    '[*-[:alpha:]]',
    '[\\x41-[:alpha:](?',
    '[--[:alpha:](?',
    '[a-[:alpha:]]',
    // After a class escape or a range, `-` is a character and `[:alpha:]` a POSIX class.
    '[\\d-[:alpha:]]',
    '[\\pL-[:alpha:](?',
    '[\\p{L}-[:alpha:](?',
    '[a-b-[:alpha:]](?',
    '[[:alpha:]-[:digit:]]',
  ])('compiles %s exactly when Go does', (source) => {
    expect(GoRegex.compile(source) instanceof GoRegex).toBe(compilesInGo(source));
  });

  it('finds the same matches, groups and offsets on random patterns and texts', () => {
    fc.assert(
      fc.property(pattern, text, (source, subject) => {
        const ours = GoRegex.compile(source);
        if (!compilesInGo(source)) {
          // Two groups named alike.
          expect(ours).not.toBeInstanceOf(GoRegex);
          return;
        }
        expect(ours).toBeInstanceOf(GoRegex);
        const regex = ours as GoRegex;
        expect(regex.findAll(subject)).toEqual(referenceFindAll(source, subject));
        expect(regex.findAll(subject, 1)).toEqual(referenceFindAll(source, subject, 1));
        expect(regex.test(subject)).toBe(referenceFindAll(source, subject, 1).length > 0);
        expect(regex.groupCount).toBe(referenceGroupCount(source));
        const folded = GoRegex.compile(source, { caseInsensitive: true }) as GoRegex;
        expect(folded.test(subject)).toBe(
          referenceFindAll(source, subject, 1, GO_CASE_INSENSITIVE).length > 0,
        );
        const whole = GoRegex.compileWhole(source) as GoRegex;
        expect(whole.test(subject)).toBe(referenceMatchesWhole(source, subject));
      }),
      { numRuns: 3000 },
    );
    // re2js, the reference, takes seconds for these cases on a busy machine; the limit only guards a hang.
  }, 180_000);

  it('accepts and refuses the same patterns', () => {
    const token = fc.constantFrom(
      'a',
      '(',
      ')',
      '[',
      ']',
      '\\',
      '*',
      '+',
      '?',
      '{2}',
      '{,}',
      '|',
      '^',
      '(?',
      'P<',
      '<',
      '>',
      'x',
      '=',
      '!',
      ':',
      'i',
      '-',
      'Q',
      'E',
      'C',
      'p',
      '{L}',
      '{Greek}',
      '{Letter}',
      'u',
      'z',
      'd',
      '1',
      '/',
      '[:alpha:]',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (tokens) => {
        const source = tokens.join('');
        expect(GoRegex.compile(source) instanceof GoRegex, source).toBe(compilesInGo(source));
      }),
      { numRuns: 5000 },
    );
  });
});
