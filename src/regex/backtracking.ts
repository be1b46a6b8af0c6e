import { asStringCharacters, type CharSet, intersects, toJsClass, union } from './charset.js';
import type { Assertion, Node } from './tree.js';
import { parseTree } from './tree.js';

/**
 * V8's own RegExp for the patterns where it is provably as safe as RE2 and means what Go means.
 *
 * V8 backtracks: a pattern like `(a+)+$` takes exponential time, `[0-9]*x` quadratic time over a
 * long run of digits. This takes a pattern only when an analysis of its Glushkov automaton (one
 * state per character the pattern can consume) proves every search linear in the text:
 *
 * 1. Deterministic: from the start and after each character, the characters that can come next
 *    belong to disjoint sets, counting each way of reaching one (so `(a+)+`, `(a|a)`, `a*a` fail).
 *    A backtracking engine then has one live path: any other branch fails on its first character.
 *    Repetitions and alternatives must consume something, or the ways to skip them would multiply.
 * 2. Restarts stay bounded: a search tries every start in turn, so an attempt must not go on long
 *    from many starts inside an earlier attempt's span. Within a span, a start that goes on is at a
 *    character consumed outside loops (a bounded number), or in a loop over one class that the
 *    first characters of a match soon leave: in `(?i)Stable.tag:\s?([\w.]+)` an attempt from
 *    inside the `[\w.]+` run needs the `:` eleventh, so only the run's last ten starts can go on.
 *    A loop whose characters can begin a match otherwise (`[0-9]*x`, `a[ab]*c`) is refused. Each
 *    character is then read by a bounded number of attempts. A pattern anchored at the start of
 *    the text has one attempt.
 *
 * The bound on the work per character is kept within the order of RE2's own worst case (its NFA
 * simulation is linear with a factor of the pattern's size).
 *
 * And it takes a pattern only when the translation means what Go means (see tree.ts for the syntax
 * read): Go's `\s \w \d \b`, ASCII case folding with the Kelvin sign and the long s, `.` and `$`
 * without (?s) and (?m), leftmost-first choice (the same in both), no capture group inside a
 * repetition (JavaScript forgets a group's earlier iterations, Go keeps them).
 */

/** Patterns with more character positions than this are left to RE2. */
const MAX_POSITIONS = 1000;
/** Attempts reading a character, times branches tried per character: the work bound per character. */
const MAX_WORK_PER_CHARACTER = 256;
/**
 * Past this many restarts per attempt, RE2 is faster: a pattern like `[a-zA-Z0-9+/]{40}` starts
 * an attempt at nearly every character of prose and reads on up to 40 characters, where RE2's DFA
 * takes one step per byte (measured: 12 times slower on V8 over a 100 KB page).
 */
const MAX_RESTARTS = 12;
/** How far the first characters of a match are followed to find one a loop cannot take. */
const LEAD_DEPTH = 32;

export interface BacktrackingMatch {
  readonly start: number;
  readonly end: number;
  readonly groups: readonly (string | undefined)[];
}

export class BacktrackingRegex {
  private global: RegExp | undefined;

  private constructor(
    readonly jsSource: string,
    private readonly tester: RegExp,
    private readonly matchesEmpty: boolean,
  ) {}

  /** The V8 regex for a pattern already checked by RE2, or undefined when it is not provably safe. */
  static of(pattern: string, foldCase: boolean): BacktrackingRegex | undefined {
    const tree = parseTree(pattern, foldCase);
    const cost = tree === undefined ? undefined : backtrackingCost(tree);
    if (tree === undefined || cost === undefined || cost.restarts > MAX_RESTARTS) return undefined;
    const source = translate(tree);
    try {
      return new BacktrackingRegex(source, new RegExp(source, 'u'), matchesEmpty(tree));
    } catch {
      return undefined;
    }
  }

  /** Whether the text has a match; undefined when V8 ran out of stack (the caller asks RE2). */
  test(text: string): boolean | undefined {
    // V8 tries an empty match between the halves of a surrogate pair too; findAll skips those.
    if (this.matchesEmpty) {
      const found = this.findAll(text, 1);
      return found === undefined ? undefined : found.length > 0;
    }
    try {
      return this.tester.test(text);
    } catch (error) {
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  }

  /**
   * Go's FindAllStringSubmatch: successive matches, an empty match right after the previous one
   * skipped, `limit` < 0 for all. Undefined when V8 ran out of stack.
   */
  findAll(text: string, limit: number): BacktrackingMatch[] | undefined {
    this.global ??= new RegExp(this.jsSource, 'gu');
    const regex = this.global;
    const out: BacktrackingMatch[] = [];
    let position = 0;
    let previousEnd = -1;
    try {
      while ((limit < 0 || out.length < limit) && position <= text.length) {
        regex.lastIndex = position;
        const found = regex.exec(text);
        if (found === null) break;
        const start = found.index;
        const end = start + (found[0] as string).length;
        if (start === end && insidePair(text, start)) {
          position = start + 1;
          continue;
        }
        const accepted = !(end === position && start === previousEnd);
        position = end === position ? position + characterLength(text, position) : end;
        previousEnd = end;
        if (accepted) out.push({ start, end, groups: Array.from(found) });
      }
    } catch (error) {
      if (error instanceof RangeError) return undefined;
      throw error;
    }
    return out;
  }
}

/** UTF-16 units of the character at `index`: a surrogate pair is one character, as Go reads it. */
function characterLength(text: string, index: number): number {
  const code = text.codePointAt(index);
  return code !== undefined && code > 0xffff ? 2 : 1;
}

/** True when `index` falls between the two halves of a surrogate pair: inside one character. */
function insidePair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

function matchesEmpty(node: Node): boolean {
  switch (node.kind) {
    case 'char':
      return false;
    case 'assert':
      return true;
    case 'group':
      return matchesEmpty(node.body);
    case 'concat':
      return node.items.every(matchesEmpty);
    case 'alternate':
      return node.branches.some(matchesEmpty);
    case 'repeat':
      return node.min === 0 || matchesEmpty(node.body);
  }
}

/** One state of the automaton: a character the pattern consumes, and the states that can follow. */
interface Position {
  readonly set: CharSet;
  readonly loop: Loop;
  /** With one entry per way of getting there. */
  readonly follow: Position[];
}

/**
 * Outside unbounded repetitions, the one class of a loop (`[0-9]+`) not inside another, or any
 * other place in a loop.
 */
type Loop = 'none' | 'single' | 'other';

interface Fragment {
  readonly nullable: boolean;
  readonly first: readonly Position[];
  readonly last: readonly Position[];
}

class Unsafe extends Error {}

/** Rules 1 and 2 above, and the bound on the work per character. */
export function linearWhenBacktracked(tree: Node): boolean {
  return backtrackingCost(tree) !== undefined;
}

interface Cost {
  /** The bound on the work per character of text (attempts reading it times branches tried). */
  readonly work: number;
  /** Places inside an attempt where another attempt may start and go on. */
  readonly restarts: number;
}

/** What a backtracking search costs per character at most; undefined when that is unbounded. */
function backtrackingCost(tree: Node): Cost | undefined {
  const positions: Position[] = [];
  let root: Fragment;
  try {
    root = fragmentOf(tree, 'none', positions);
  } catch (error) {
    if (error instanceof Unsafe) return undefined;
    throw error;
  }
  if (!disjoint(root.first) || !positions.every((p) => disjoint(p.follow))) return undefined;
  const branching = Math.max(root.first.length, ...positions.map((p) => p.follow.length)) + 1;
  if (anchoredAtStart(tree)) return bounded({ work: branching, restarts: 0 });
  const lead = leadingSets(root.first);
  const starts = lead[0] ?? [];
  // Starts inside an attempt that may go on: at characters consumed outside loops, and near the
  // end of each loop run (how near: the depth of the first leading set the loop cannot take).
  let restarts = positions.filter((p) => p.loop === 'none' && intersects(p.set, starts)).length;
  let shortAttempt = 1;
  for (const position of positions) {
    if (position.loop === 'none' || !intersects(position.set, starts)) continue;
    if (position.loop === 'other') return undefined;
    const depth = lead.findIndex((set) => !intersects(set, position.set)) + 1;
    if (depth === 0) return undefined;
    restarts += depth - 1;
    shortAttempt = Math.max(shortAttempt, depth);
  }
  return bounded({ work: (restarts + 2 + shortAttempt) * branching, restarts });
}

function bounded(cost: Cost): Cost | undefined {
  return cost.work <= MAX_WORK_PER_CHARACTER ? cost : undefined;
}

/** The characters a match can have first, second... (as far as LEAD_DEPTH). */
function leadingSets(first: readonly Position[]): CharSet[] {
  const sets: CharSet[] = [];
  let level = new Set(first);
  while (level.size > 0 && sets.length < LEAD_DEPTH) {
    sets.push(union(...[...level].map((p) => p.set)));
    level = new Set([...level].flatMap((p) => p.follow));
  }
  return sets;
}

function fragmentOf(node: Node, loop: Loop, positions: Position[]): Fragment {
  switch (node.kind) {
    case 'char': {
      if (positions.length >= MAX_POSITIONS) throw new Unsafe();
      const position: Position = { set: asStringCharacters(node.set), loop, follow: [] };
      positions.push(position);
      return { nullable: false, first: [position], last: [position] };
    }
    case 'assert':
      return { nullable: true, first: [], last: [] };
    case 'group':
      return fragmentOf(node.body, loop, positions);
    case 'concat':
      return node.items.map((item) => fragmentOf(item, loop, positions)).reduce(sequence, EMPTY_FRAGMENT);
    case 'alternate': {
      const branches = node.branches.map((branch) => fragmentOf(branch, loop, positions));
      if (branches.some((branch) => branch.nullable)) throw new Unsafe();
      return {
        nullable: false,
        first: branches.flatMap((branch) => branch.first),
        last: branches.flatMap((branch) => branch.last),
      };
    }
    case 'repeat':
      return repetition(node, loop, positions);
  }
}

const EMPTY_FRAGMENT: Fragment = { nullable: true, first: [], last: [] };

/** `a` then `b`: every end of `a` is followed by every start of `b`. */
function sequence(a: Fragment, b: Fragment): Fragment {
  for (const position of a.last) position.follow.push(...b.first);
  return {
    nullable: a.nullable && b.nullable,
    first: a.nullable ? [...a.first, ...b.first] : a.first,
    last: b.nullable ? [...b.last, ...a.last] : b.last,
  };
}

function optional(fragment: Fragment): Fragment {
  return { ...fragment, nullable: true };
}

/** `x{min,max}` as the engine runs it: `min` copies, then nested optional ones or a loop. */
function repetition(node: Node & { kind: 'repeat' }, outer: Loop, positions: Position[]): Fragment {
  const { body, min, max } = node;
  if (max === 0 || (max > 1 && hasCapture(body))) throw new Unsafe();
  const copy = (loop: Loop): Fragment => {
    const fragment = fragmentOf(body, loop, positions);
    if (fragment.nullable) throw new Unsafe();
    return fragment;
  };
  const loop = (): Fragment => {
    const fragment = copy(outer === 'none' && body.kind === 'char' ? 'single' : 'other');
    for (const position of fragment.last) position.follow.push(...fragment.first);
    return fragment;
  };
  if (max === Infinity) {
    const fixed = Array.from({ length: Math.max(min - 1, 0) }, () => copy(outer));
    return [...fixed, min === 0 ? optional(loop()) : loop()].reduce(sequence, EMPTY_FRAGMENT);
  }
  const fixed = Array.from({ length: min }, () => copy(outer));
  let rest = EMPTY_FRAGMENT;
  for (let k = 0; k < max - min; k++) rest = optional(sequence(copy(outer), rest));
  return [...fixed, rest].reduce(sequence, EMPTY_FRAGMENT);
}

function hasCapture(node: Node): boolean {
  switch (node.kind) {
    case 'group':
      return node.capture || hasCapture(node.body);
    case 'concat':
      return node.items.some(hasCapture);
    case 'alternate':
      return node.branches.some(hasCapture);
    case 'repeat':
      return hasCapture(node.body);
    default:
      return false;
  }
}

/** No two entries can take the same character, and no state is reached two ways. */
function disjoint(next: readonly Position[]): boolean {
  for (let i = 0; i < next.length; i++) {
    for (let j = i + 1; j < next.length; j++) {
      const a = next[i] as Position;
      const b = next[j] as Position;
      if (a === b || intersects(a.set, b.set)) return false;
    }
  }
  return true;
}

function anchoredAtStart(node: Node): boolean {
  switch (node.kind) {
    case 'assert':
      return node.at === 'textStart';
    case 'group':
      return anchoredAtStart(node.body);
    case 'concat':
      return node.items[0] !== undefined && anchoredAtStart(node.items[0]);
    case 'alternate':
      return node.branches.every(anchoredAtStart);
    default:
      return false;
  }
}

const ASSERTIONS: Readonly<Record<Assertion, string>> = {
  textStart: '^',
  textEnd: '$',
  // The `m` flag would also take \r, U+2028 and U+2029 for line ends; Go takes only \n.
  lineStart: '(?<![^\\n])',
  lineEnd: '(?![^\\n])',
  wordBoundary: '\\b',
  notWordBoundary: '\\B',
};

/** The JavaScript source (for the `u` flag, no other) meaning what the tree means in Go. */
export function translate(node: Node): string {
  switch (node.kind) {
    case 'char':
      return toJsClass(asStringCharacters(node.set));
    case 'assert':
      return ASSERTIONS[node.at];
    case 'group':
      return node.capture ? `(${translate(node.body)})` : `(?:${translate(node.body)})`;
    case 'concat':
      return node.items.map(translate).join('');
    case 'alternate':
      return `(?:${node.branches.map(translate).join('|')})`;
    case 'repeat': {
      const body = node.body.kind === 'char' ? translate(node.body) : `(?:${translate(node.body)})`;
      const count = node.max === Infinity ? `{${node.min},}` : `{${node.min},${node.max}}`;
      return `${body}${count}${node.greedy ? '' : '?'}`;
    }
  }
}
