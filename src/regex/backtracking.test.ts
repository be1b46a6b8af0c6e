/**
 * V8's engine for the patterns proven safe for it: the same answers as Go (re2js) and as RE2, and
 * never a pattern that backtracks more than linearly, checked on a model of a backtracking engine.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BacktrackingRegex, linearWhenBacktracked } from './backtracking.js';
import { has } from './charset.js';
import { type CompileOptions, GoRegex } from './regex.js';
import {
  FOLDING_LETTERS,
  GO_CASE_INSENSITIVE,
  referenceFindAll,
  referenceMatchesWhole,
} from './testing/go-reference.js';
import { type Node, parseTree } from './tree.js';

function compile(source: string, options: CompileOptions = {}): GoRegex {
  const compiled = GoRegex.compile(source, options);
  if (!(compiled instanceof GoRegex)) throw new Error(compiled.message);
  return compiled;
}

describe('the engine chosen', () => {
  it('is V8 for template regexes that cannot backtrack more than linearly', () => {
    const safe = [
      'href="(/[0-9]+/[0-9]+/[0-9]+/entry-[0-9]+/)"',
      '(?i)powered by wordpress ([0-9.]+)',
      '(?i)Stable.tag:\\s?([\\w.]+)',
      'ng-version="([0-9.]+)"',
      'aws_access_key_id\\s*=\\s*',
      '"version":"([^"]+)"',
      '(?i)<title>([^<]+)</title>',
      '(?m)^root:',
      '\\bwp-(?:content|includes)/',
    ];
    expect(safe.filter((source) => compile(source).engine !== 'v8')).toEqual([]);
  });

  it('is RE2 for patterns a backtracking engine takes exponential or quadratic time on', () => {
    const hostile = [
      '(a+)+$',
      '^(a+)+$',
      '(?:a+)+b',
      '(a|a)*b',
      '(a|aa)*c',
      '(a*)*b',
      '(x+x+)+y',
      '(\\w+\\s?)*$',
      '(\\d+)*\\.',
      '(.*a){20}',
      '(?:a?){30}a{30}',
      'a*a*a*b',
      '(?:a|b|ab)*c',
      '(?i)(?:k|\\x{212a})+x',
      // Quadratic: every start inside a long run begins an attempt that reads the run again.
      '[0-9]*x',
      '\\d+\\.\\d+x',
      'a[ab]*c',
      '(?:ab)+c',
      'a.*b.*c',
      '\\s*\\S*x',
      'root:.*:0:0:',
      '(?i)Apache Tomcat.*([0-9]\\.[0-9]+\\.[0-9]+)',
    ];
    expect(hostile.filter((source) => compile(source).engine !== 're2')).toEqual([]);
  });

  it('is RE2 where an attempt can start at nearly every character and read on, which RE2 does faster', () => {
    for (const source of ['([a-zA-Z0-9+/]{40})', '[A-Z0-9]{20}']) {
      expect(linearWhenBacktracked(tree(source)), source).toBe(true);
      expect(compile(source).engine, source).toBe('re2');
    }
  });

  it('is RE2 where V8 cannot say what Go means', () => {
    const untranslated = [
      // A group repeated: JavaScript forgets what it took in earlier iterations, Go keeps it.
      '(?:(a)|b)+',
      '(a)+',
      // Unicode classes and case folding beyond ASCII.
      '\\pL+',
      '(?i)é',
      // Repetitions and alternatives that can take nothing.
      '(?:a|)b',
      'x(?:a*)?y',
    ];
    expect(untranslated.filter((source) => compile(source).engine !== 're2')).toEqual([]);
  });
});

const literal = fc.constantFrom(
  'a',
  'b',
  'k',
  's',
  'S',
  '0',
  '"',
  '<',
  ':',
  '-',
  ' ',
  '\\.',
  '\\n',
  '\\x{FFFD}',
  'é',
  '😀',
  '\\x41',
  '\\x{212A}',
);
const characterClass = fc.constantFrom(
  '[0-9]',
  '[a-z]',
  '[^"]',
  '[^<]',
  '\\d',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '.',
  '[[:alpha:]]',
  '[[:^space:]]',
  '[^a-z]',
  '[\\w.]',
  '[ks]',
  '[^k]',
  '[]a]',
  '[a-]',
  '[^\\n]',
  '[é-ü]',
);
const quantifier = fc.constantFrom('', '', '', '', '+', '*', '?', '{2}', '{1,3}', '+?', '*?', '{2,}', '??');
const piece = fc
  .tuple(fc.oneof(literal, literal, characterClass), quantifier)
  .map(([atom, count]) => atom + count);
const sequence = fc.array(piece, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(''));
const part = fc.oneof(
  sequence,
  sequence.map((s) => `(${s})`),
  sequence.map((s) => `(?:${s})?`),
  sequence.map((s) => `(?P<name>${s})`),
  fc.tuple(sequence, sequence).map(([x, y]) => `(?:${x}|${y})`),
  fc.tuple(sequence, sequence).map(([x, y]) => `(${x}|${y})`),
  sequence.map((s) => `(?:${s})+`),
);
const assertion = fc.constantFrom('', '', '', '^', '\\A', '\\b', '$', '\\z', '\\B');
const flags = fc.constantFrom('', '', '', '(?i)', '(?m)', '(?s)', '(?U)', '(?is)', '(?m-s)');
const pattern = fc
  .tuple(flags, assertion, fc.array(part, { minLength: 1, maxLength: 3 }), assertion)
  .map(([f, before, parts, after]) => f + before + parts.join('') + after);
const text = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      ...FOLDING_LETTERS,
      '0',
      '1',
      '"',
      '<',
      ':',
      '-',
      ' ',
      '.',
      '_',
      'A',
      '\n',
      '\r',
      '\v',
      '\u2028',
      'é',
      '😀',
      '\udc80',
      '\ufffd',
    ),
    { maxLength: 30 },
  )
  .map((chars) => chars.join(''));

/** V8 on the random texts too, which are short. */
const V8_ON_SHORT_TEXTS: CompileOptions = { engines: 'v8' };

describe('V8 against Go (re2js) and RE2, on the patterns it runs', () => {
  it('finds the same matches, groups and offsets', () => {
    let onV8 = 0;
    fc.assert(
      fc.property(pattern, text, (source, subject) => {
        const regex = GoRegex.compile(source, V8_ON_SHORT_TEXTS);
        if (!(regex instanceof GoRegex) || regex.engine !== 'v8') return;
        onV8++;
        const reference = referenceFindAll(source, subject);
        expect(regex.findAll(subject)).toEqual(reference);
        expect(regex.findAll(subject)).toEqual(compile(source, { engines: 're2' }).findAll(subject));
        expect(regex.findAll(subject, 1)).toEqual(reference.slice(0, 1));
        expect(regex.test(subject)).toBe(reference.length > 0);
      }),
      { numRuns: 4000 },
    );
    // Most of the grammar's patterns are proven safe, so the comparison is not vacuous.
    expect(onV8).toBeGreaterThan(400);
  });

  it('matches the same with case folding asked for and with the whole text', () => {
    fc.assert(
      fc.property(pattern, text, (source, subject) => {
        const folded = GoRegex.compile(source, { ...V8_ON_SHORT_TEXTS, caseInsensitive: true });
        if (folded instanceof GoRegex && folded.engine === 'v8') {
          expect(folded.findAll(subject)).toEqual(referenceFindAll(source, subject, -1, GO_CASE_INSENSITIVE));
        }
        const whole = GoRegex.compileWhole(source, V8_ON_SHORT_TEXTS);
        if (whole instanceof GoRegex && whole.engine === 'v8') {
          expect(whole.test(subject)).toBe(referenceMatchesWhole(source, subject));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to RE2 when V8 runs out of stack on a long text', () => {
    const regex = compile('a(?:x|y)*"');
    expect(regex.engine).toBe('v8');
    const long = `a${'x'.repeat(20_000_000)}"`;
    // V8 pushes a backtrack entry per iteration of the group and runs out of stack here.
    expect(BacktrackingRegex.of('a(?:x|y)*"', false)?.findAll(long, -1)).toBeUndefined();
    expect(regex.findAll(long).map((match) => match.end)).toEqual([long.length]);
    expect(regex.test(long)).toBe(true);
  });
});

/**
 * The steps a backtracking engine takes to search `text` (ASCII here) for the tree, as V8's does:
 * every start in turn, branches and repetitions tried in order of preference. Throws past `cap`.
 */
function backtrackingSteps(tree: Node, text: string, cap: number): number {
  let steps = 0;
  const word = (i: number): boolean => /\w/.test(text[i] ?? '');
  const holds = (node: Node & { kind: 'assert' }, i: number): boolean => {
    switch (node.at) {
      case 'textStart':
        return i === 0;
      case 'textEnd':
        return i === text.length;
      case 'lineStart':
        return i === 0 || text[i - 1] === '\n';
      case 'lineEnd':
        return i === text.length || text[i] === '\n';
      case 'wordBoundary':
        return word(i - 1) !== word(i);
      case 'notWordBoundary':
        return word(i - 1) === word(i);
    }
  };
  const match = (node: Node, i: number, next: (j: number) => boolean): boolean => {
    steps++;
    if (steps > cap) throw new Error('over the cap');
    switch (node.kind) {
      case 'char':
        return i < text.length && has(node.set, text.charCodeAt(i)) && next(i + 1);
      case 'assert':
        return holds(node, i) && next(i);
      case 'group':
        return match(node.body, i, next);
      case 'concat':
        return inOrder(node.items, 0, i, next);
      case 'alternate':
        return node.branches.some((branch) => match(branch, i, next));
      case 'repeat':
        return repeat(node, 0, i, next);
    }
  };
  const inOrder = (items: readonly Node[], k: number, i: number, next: (j: number) => boolean): boolean => {
    const item = items[k];
    return item === undefined ? next(i) : match(item, i, (j) => inOrder(items, k + 1, j, next));
  };
  const repeat = (
    node: Node & { kind: 'repeat' },
    count: number,
    i: number,
    next: (j: number) => boolean,
  ): boolean => {
    const more = (): boolean =>
      count < node.max &&
      match(node.body, i, (j) => (j > i || count < node.min) && repeat(node, count + 1, j, next));
    const stop = (): boolean => count >= node.min && next(i);
    return node.greedy ? more() || stop() : stop() || more();
  };
  for (let start = 0; start <= text.length; start++) if (match(tree, start, () => true)) break;
  return steps;
}

/**
 * Whether the steps grow faster than the text on `unit` repeated, then a character no pattern here
 * takes (so that the search goes on to the end): ×4 text, over ×5 steps.
 */
function superlinear(tree: Node, unit: string, length = 100): boolean {
  const units = unit.repeat(Math.ceil(length / unit.length));
  const short = `${units}!`;
  const long = `${units.repeat(4)}!`;
  try {
    return backtrackingSteps(tree, long, 1_000_000) > 5 * backtrackingSteps(tree, short, 1_000_000) + 100;
  } catch {
    return true;
  }
}

function tree(source: string): Node {
  const parsed = parseTree(source, false);
  if (parsed === undefined) throw new Error(`${source} is not read`);
  return parsed;
}

describe('the proof of linear time, on a model of a backtracking engine', () => {
  it('sees the model blow up on the hostile patterns it refuses', () => {
    const cases: [string, string][] = [
      ['(a+)+$', 'a'],
      ['(?:a|aa)*c', 'a'],
      ['[0-9]*x', '0'],
      ['a[ab]*c', 'ab'],
      ['(?:ab)+c', 'ab'],
      ['a.*b.*c', 'ab'],
      ['root:.*:0:0:', 'root:'],
      ['\\d+\\.\\d+x', '1'],
    ];
    for (const [source, unit] of cases) {
      expect(linearWhenBacktracked(tree(source)), source).toBe(false);
      expect(superlinear(tree(source), unit), source).toBe(true);
    }
  });

  it('finds the steps linear in the text for every pattern it proves safe', () => {
    // Texts of the pattern's own characters, which reach deep into it.
    const withTexts = pattern.chain((source) => {
      const own = [...source].filter((char) => char < '\x80');
      const char = fc.constantFrom(...own, 'a', '0', '"', ' ', '\n', 'x');
      const unit = fc.array(char, { minLength: 1, maxLength: 8 }).map((chars) => chars.join(''));
      return fc.tuple(fc.constant(source), fc.array(unit, { minLength: 1, maxLength: 4 }));
    });
    let proven = 0;
    fc.assert(
      fc.property(withTexts, ([source, units]) => {
        const parsed = parseTree(source, false);
        if (parsed === undefined || !linearWhenBacktracked(parsed)) return;
        proven++;
        for (const u of units)
          expect(superlinear(parsed, u), `${source} on ${JSON.stringify(u)}`).toBe(false);
      }),
      { numRuns: 1500 },
    );
    expect(proven).toBeGreaterThan(150);
  });
});
