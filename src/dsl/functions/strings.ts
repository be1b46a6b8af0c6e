/** String helpers of projectdiscovery/dsl, with Go's byte and rune semantics. */
import type { GoRegex, RegexMatch } from '../../regex/index.js';
import { byteLength, bytesToText, isAscii, replaceInvalidBytes, textToBytes } from '../bytes.js';
import { argumentError } from '../errors.js';
import {
  byteSlice,
  compareGoStrings,
  goToLower,
  goToUpper,
  goTrimCutset,
  goTrimSpace,
  runes,
} from '../go-strings.js';
import { type DslValue, isList } from '../value.js';
import {
  arg,
  atoiArg,
  checkResultLength,
  fixed,
  type HelperFunction,
  numberArg,
  ranged,
  str,
  textArg,
} from './helper.js';

const VARIADIC = Number.POSITIVE_INFINITY;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;

/**
 * golang.org/x/text's title casing (the language argument changes nothing for the languages
 * templates use): each word's first letter upper case, its other letters lower case.
 */
function toTitle(text: string): string {
  let out = '';
  let inWord = false;
  for (const char of text) {
    const apostropheInWord = inWord && (char === "'" || char === '’');
    if (WORD_CHAR.test(char) || apostropheInWord) {
      out += inWord ? char.toLowerCase() : char.toUpperCase();
      inWord = true;
    } else {
      out += char;
      inWord = false;
    }
  }
  return out;
}

function rest(args: readonly DslValue[], from: number): string[] {
  return args.slice(from).map(str);
}

function anyLine(text: string, test: (line: string) => boolean): boolean {
  return text.split('\n').some(test);
}

/** Go's strings.ReplaceAll, where an empty `old` inserts `replacement` around every rune. */
function replaceAll(text: string, old: string, replacement: string): string {
  if (old === '') {
    const chars = Array.from(text);
    checkResultLength('replace', text.length + (chars.length + 1) * replacement.length);
    return replacement + chars.map((char) => char + replacement).join('');
  }
  return text.replaceAll(old, replacement);
}

/** Go's strings.Count, where an empty separator counts runes plus one. */
function count(text: string, part: string): number {
  if (part === '') return Array.from(text).length + 1;
  let found = 0;
  let from = text.indexOf(part);
  while (from >= 0) {
    found += 1;
    from = text.indexOf(part, from + part.length);
  }
  return found;
}

/** Go's strings.SplitN: `limit` < 0 means all parts, 0 means none. */
function splitN(text: string, separator: string, limit: number): string[] {
  if (limit === 0) return [];
  const parts = separator === '' ? Array.from(replaceInvalidBytes(text)) : text.split(separator);
  if (limit < 0 || parts.length <= limit) return parts;
  if (separator === '') return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join('')];
  return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(separator)];
}

/** The dsl library's toChunks: pieces of `size` runes. */
function chunks(text: string, size: number): string[] {
  const chars = Array.from(text);
  if (size <= 0 || size >= chars.length) return [text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** Go's Regexp.ReplaceAllString: `$1`, `${1}`, `$name`, `${name}` and `$$` in the replacement. */
export function regexReplaceAll(regex: GoRegex, text: string, template: string): string {
  let out = '';
  let last = 0;
  for (const match of regex.findAll(text)) {
    out += text.slice(last, match.start) + expand(regex, match, template);
    last = match.end;
    checkResultLength('replace_regex', out.length);
  }
  return out + text.slice(last);
}

const NAME_CHAR = /^[\p{L}\p{Nd}_]$/u;

function expand(regex: GoRegex, match: RegexMatch, template: string): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) break;
    out += template.slice(i, dollar);
    i = dollar + 1;
    if (template[i] === '$') {
      out += '$';
      i += 1;
      continue;
    }
    const reference = readReference(template, i);
    if (reference === undefined) {
      out += '$';
      continue;
    }
    i = reference.end;
    out += groupText(regex, match, reference.name);
  }
  return out + template.slice(i);
}

function readReference(template: string, start: number): { name: string; end: number } | undefined {
  const brace = template[start] === '{';
  let i = brace ? start + 1 : start;
  const nameStart = i;
  for (const char of template.slice(i)) {
    if (!NAME_CHAR.test(char)) break;
    i += char.length;
  }
  if (i === nameStart) return undefined;
  const name = template.slice(nameStart, i);
  if (brace) {
    if (template[i] !== '}') return undefined;
    i += 1;
  }
  return { name, end: i };
}

function groupText(regex: GoRegex, match: RegexMatch, name: string): string {
  const numeric = /^(0|[1-9]\d{0,7})$/.test(name) ? Number(name) : -1;
  const index = numeric >= 0 ? numeric : regex.namedGroups[name];
  if (index === undefined) return '';
  return match.groups[index] ?? '';
}

function sortRunes(text: string): string {
  return runes(text)
    .sort((a, b) => (a.codePointAt(0) as number) - (b.codePointAt(0) as number))
    .join('');
}

function uniqueRunes(text: string): string {
  return [...new Set(runes(text))].join('');
}

function substr(args: readonly DslValue[]): string {
  const text = textArg(args, 0);
  if (text === '') throw argumentError('substr', 'empty string');
  const length = byteLength(text);
  const start = atoiArg('substr', args, 1);
  if (start < 0) throw argumentError('substr', 'negative start position');
  if (start > length) throw argumentError('substr', 'start position bigger than the string length');
  let end: number | undefined;
  if (args.length > 2) {
    end = atoiArg('substr', args, 2);
    if (end < 0) end += length;
    if (end < 0) throw argumentError('substr', 'negative end position');
    if (end < start) throw argumentError('substr', 'end position before start');
    if (end > length) throw argumentError('substr', 'end position bigger than the string length');
  }
  return byteSlice(text, start, end) as string;
}

function join(args: readonly DslValue[]): string {
  const separator = textArg(args, 0);
  if (args.length === 2) {
    const elements = arg(args, 1);
    if (!isList(elements)) throw argumentError('join', 'with one element, it must be a list');
    return elements.map(str).join(separator);
  }
  const elements = args.slice(1);
  if (elements.some(isList)) throw argumentError('join', 'cannot join more than one list');
  return elements.map(str).join(separator);
}

function split(args: readonly DslValue[]): string[] {
  const text = textArg(args, 0);
  if (args.length === 2) {
    const separatorOrSize = textArg(args, 1);
    if (/^[-+]?\d+$/.test(separatorOrSize)) return chunks(text, Number(separatorOrSize));
    return splitN(text, separatorOrSize, -1);
  }
  return splitN(text, textArg(args, 1), atoiArg('split', args, 2));
}

function repeat(args: readonly DslValue[]): string {
  const text = textArg(args, 0);
  const times = atoiArg('repeat', args, 1);
  if (times < 0) throw argumentError('repeat', 'negative count');
  checkResultLength('repeat', text.length * times);
  return text.repeat(times);
}

function padding(args: readonly DslValue[]): string {
  const text = textArg(args, 0);
  const pad = textToBytes(textArg(args, 1));
  const value = arg(args, 2);
  const length = Math.trunc(typeof value === 'number' ? value : numberArg('padding', args, 2));
  if (length === 0 || Number.isNaN(length)) throw argumentError('padding', 'invalid padding length');
  if (pad.length === 0) throw argumentError('padding', 'invalid padding byte');
  const data = textToBytes(text);
  if (data.length >= length) return text;
  const mode = arg(args, 3);
  if (mode !== 'prefix' && mode !== 'suffix') {
    throw argumentError('padding', "padding mode must be 'prefix' or 'suffix'");
  }
  checkResultLength('padding', length);
  const filler = Buffer.alloc(length - data.length);
  for (let i = 0; i < filler.length; i++) filler[i] = pad[i % pad.length] as number;
  const bytes = mode === 'prefix' ? Buffer.concat([filler, data]) : Buffer.concat([data, filler]);
  return bytesToText(bytes);
}

function index(args: readonly DslValue[]): string {
  const position = atoiArg('index', args, 1);
  const target = arg(args, 0);
  if (isList(target)) {
    if (position < 0 || position >= target.length) throw argumentError('index', 'index out of range');
    return str(target[position] as DslValue);
  }
  const text = str(target);
  if (isAscii(text)) {
    if (position < 0 || position >= text.length) throw argumentError('index', 'index out of range');
    return text[position] as string;
  }
  const bytes = textToBytes(text);
  if (position < 0 || position >= bytes.length) throw argumentError('index', 'index out of range');
  // Go's string(byte) converts the byte value to the rune of the same number.
  return String.fromCharCode(bytes[position] as number);
}

export const stringFunctions: readonly HelperFunction[] = [
  fixed('len', 1, (args) => {
    const value = arg(args, 0);
    return isList(value) ? value.length : byteLength(str(value));
  }),
  fixed('to_lower', 1, (args) => goToLower(textArg(args, 0))),
  fixed('to_upper', 1, (args) => goToUpper(textArg(args, 0))),
  fixed('trim', 2, (args) => goTrimCutset(textArg(args, 0), textArg(args, 1), true, true)),
  fixed('trim_left', 2, (args) => goTrimCutset(textArg(args, 0), textArg(args, 1), true, false)),
  fixed('trim_right', 2, (args) => goTrimCutset(textArg(args, 0), textArg(args, 1), false, true)),
  fixed('trim_space', 1, (args) => goTrimSpace(textArg(args, 0))),
  fixed('trim_prefix', 2, (args) => {
    const text = textArg(args, 0);
    const prefix = textArg(args, 1);
    return text.startsWith(prefix) ? text.slice(prefix.length) : text;
  }),
  fixed('trim_suffix', 2, (args) => {
    const text = textArg(args, 0);
    const suffix = textArg(args, 1);
    return suffix !== '' && text.endsWith(suffix) ? text.slice(0, text.length - suffix.length) : text;
  }),
  fixed('replace', 3, (args) => replaceAll(textArg(args, 0), textArg(args, 1), textArg(args, 2))),
  fixed(
    'replace_regex',
    3,
    (args, context) =>
      regexReplaceAll(context.regex(textArg(args, 1), 'replace_regex'), textArg(args, 0), textArg(args, 2)),
    { regexArgs: [1] },
  ),
  fixed('reverse', 1, (args) => runes(textArg(args, 0)).reverse().join('')),
  fixed('contains', 2, (args) => textArg(args, 0).includes(textArg(args, 1))),
  ranged('contains_all', 1, VARIADIC, (args) => {
    const text = textArg(args, 0);
    return rest(args, 1).every((part) => text.includes(part));
  }),
  ranged('contains_any', 1, VARIADIC, (args) => {
    const text = textArg(args, 0);
    return rest(args, 1).some((part) => text.includes(part));
  }),
  ranged('starts_with', 2, VARIADIC, (args) => {
    const text = textArg(args, 0);
    return rest(args, 1).some((prefix) => text.startsWith(prefix));
  }),
  ranged('ends_with', 2, VARIADIC, (args) => {
    const text = textArg(args, 0);
    return rest(args, 1).some((suffix) => text.endsWith(suffix));
  }),
  ranged('line_starts_with', 2, VARIADIC, (args) => {
    const prefixes = rest(args, 1);
    return anyLine(textArg(args, 0), (line) => prefixes.some((prefix) => line.startsWith(prefix)));
  }),
  ranged('line_ends_with', 2, VARIADIC, (args) => {
    const suffixes = rest(args, 1);
    return anyLine(textArg(args, 0), (line) => suffixes.some((suffix) => line.endsWith(suffix)));
  }),
  ranged('concat', 0, VARIADIC, (args) => {
    const parts = args.map(str);
    checkResultLength(
      'concat',
      parts.reduce((total, part) => total + part.length, 0),
    );
    return parts.join('');
  }),
  ranged('join', 2, VARIADIC, join),
  ranged('split', 2, 3, split),
  ranged('substr', 2, 3, substr),
  fixed('regex', 2, (args, context) => context.regex(textArg(args, 0), 'regex').test(textArg(args, 1)), {
    regexArgs: [0],
  }),
  fixed('repeat', 2, repeat),
  fixed('padding', 4, padding),
  fixed('remove_bad_chars', 2, (args) => {
    let text = textArg(args, 0);
    for (const char of new Set(textArg(args, 1))) text = text.replaceAll(char, '');
    return text;
  }),
  ranged('to_title', 1, 2, (args) => toTitle(textArg(args, 0))),
  fixed('index', 2, index),
  fixed('count', 2, (args) => count(textArg(args, 0), textArg(args, 1)), { integer: true }),
  ranged('sort', 1, VARIADIC, (args) => {
    if (args.length === 1) return sortRunes(textArg(args, 0));
    return args.map(str).sort(compareGoStrings);
  }),
  ranged('uniq', 1, VARIADIC, (args) => {
    if (args.length === 1) return uniqueRunes(textArg(args, 0));
    return [...new Set(args.map(str))];
  }),
];
