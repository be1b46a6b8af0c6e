import type { TemplateString } from '../dsl/index.js';
import type { MapEntry, Path, SourceNode } from '../source/index.js';
import { didYouMean } from '../source/index.js';
import type { ParseContext } from './context.js';
import type { AttackType, PayloadSet, Payloads } from './model.js';
import { compileExternal, compileScalar, compileScalarPart, EMPTY_TEXT } from './texts.js';

export const ATTACK_TYPES: readonly AttackType[] = ['batteringram', 'pitchfork', 'clusterbomb'];

/** One combination of payload values, by payload name. */
export type PayloadValues = Readonly<Record<string, TemplateString>>;

/**
 * Reads payload files for the parser. Given the reference as written in the template (a relative
 * path such as `helpers/wordlists/users.txt`), returns the file's path and its values, or why it
 * cannot be read. Kept behind an interface so that parsing stays free of I/O.
 */
export interface PayloadFileReader {
  read(reference: string, templateFile: string): { path: string; values: string[] } | { error: string };
}

/**
 * Values of a payload file: one per line, empty lines skipped, a trailing `\r` dropped (Go's
 * `bufio.Scanner`, which nuclei uses).
 */
export function payloadFileValues(text: string): string[] {
  return text
    .split('\n')
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
    .filter((line) => line !== '');
}

/**
 * Every combination of payload values, lazily, in nuclei's order for each attack type:
 * - batteringram: each value of the single set in turn;
 * - pitchfork: the i-th value of every set together, stopping at the shortest set;
 * - clusterbomb: the cartesian product (the last declared set varies fastest).
 */
export function* payloadCombinations(payloads: Payloads): Generator<PayloadValues> {
  const sets = payloads.sets;
  if (sets.length === 0) return;
  switch (payloads.attack) {
    case 'batteringram':
      for (const set of sets) {
        for (const value of set.values) yield { [set.name]: value };
      }
      return;
    case 'pitchfork': {
      const count = combinationCount(payloads);
      for (let i = 0; i < count; i++) {
        const values: Record<string, TemplateString> = {};
        for (const set of sets) values[set.name] = set.values[i] ?? EMPTY_TEXT;
        yield values;
      }
      return;
    }
    case 'clusterbomb': {
      if (sets.some((s) => s.values.length === 0)) return;
      const indexes = sets.map(() => 0);
      for (;;) {
        const values: Record<string, TemplateString> = {};
        sets.forEach((set, i) => {
          values[set.name] = set.values[indexes[i] ?? 0] ?? EMPTY_TEXT;
        });
        yield values;
        let position = sets.length - 1;
        while (position >= 0) {
          const next = (indexes[position] ?? 0) + 1;
          if (next < (sets[position]?.values.length ?? 0)) {
            indexes[position] = next;
            break;
          }
          indexes[position] = 0;
          position--;
        }
        if (position < 0) return;
      }
    }
  }
}

/** How many combinations {@link payloadCombinations} yields (nuclei's `Iterator.Total`). */
export function combinationCount(payloads: Payloads): number {
  const lengths = payloads.sets.map((s) => s.values.length);
  if (lengths.length === 0) return 0;
  switch (payloads.attack) {
    case 'batteringram':
      return lengths.reduce((a, b) => a + b, 0);
    case 'pitchfork':
      return Math.min(...lengths);
    case 'clusterbomb':
      return lengths.reduce((a, b) => a * b, 1);
  }
}

/**
 * `payloads:` and `attack:` of a request block. `usedIn` is the text of the sections where a payload
 * may be referenced (requests, headers, body, matchers, extractors): as in nuclei, a set whose name
 * appears nowhere there is dropped (and reported as a warning).
 */
export function decodePayloads(
  ctx: ParseContext,
  entries: { payloads?: MapEntry; attack?: MapEntry },
  path: Path,
  usedIn: string,
  reader: PayloadFileReader | undefined,
): Payloads | undefined {
  let attack: AttackType | undefined;
  if (entries.attack !== undefined) attack = attackType(ctx, entries.attack.value, [...path, 'attack']);
  const payloadsEntry = entries.payloads;
  if (payloadsEntry === undefined || payloadsEntry.value.kind === 'null') {
    if (entries.attack !== undefined) {
      ctx.warning(entries.attack.key.pos, [...path, 'attack'], '"attack" has no effect without "payloads"');
    }
    return undefined;
  }
  const map = ctx.decode.map(
    payloadsEntry.value,
    [...path, 'payloads'],
    'a mapping of payload names to values',
  );
  if (map === undefined) return undefined;
  const sets: PayloadSet[] = [];
  for (const entry of map.entries) {
    const name = entry.key.text;
    const setPath = [...path, 'payloads', name];
    if (!usedIn.includes(name)) {
      ctx.warning(
        entry.key.pos,
        setPath,
        `payload "${name}" is not used by any request or operator; it is ignored`,
      );
      continue;
    }
    const set = payloadSet(ctx, entry, setPath, reader);
    if (set !== undefined) sets.push(set);
  }
  if (sets.length === 0) return undefined;
  if (entries.attack !== undefined && attack === undefined) return undefined;
  const chosen = attack ?? 'batteringram';
  if (chosen === 'batteringram' && sets.length > 1) {
    const names = sets.map((s) => s.name).join(', ');
    ctx.error(
      (entries.attack ?? payloadsEntry).key.pos,
      [...path, entries.attack === undefined ? 'payloads' : 'attack'],
      `batteringram takes a single payload set, but ${sets.length} are given (${names}); ` +
        'use "attack: pitchfork" to pair them or "attack: clusterbomb" to try every combination',
    );
    return undefined;
  }
  return { attack: chosen, sets };
}

function attackType(ctx: ParseContext, node: SourceNode, path: Path): AttackType | undefined {
  const text = ctx.string(node, path, 'an attack type');
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  const found = ATTACK_TYPES.find((a) => a === lower);
  if (found !== undefined) return found;
  ctx.error(
    node.pos,
    path,
    `unknown attack type "${text}"${didYouMean(lower, ATTACK_TYPES)}; expected batteringram, pitchfork or clusterbomb`,
  );
  return undefined;
}

function payloadSet(
  ctx: ParseContext,
  entry: MapEntry,
  path: Path,
  reader: PayloadFileReader | undefined,
): PayloadSet | undefined {
  const name = entry.key.text;
  const node = entry.value;
  if (node.kind === 'seq') {
    const values = listValues(ctx, node.items, path);
    if (values === undefined) return undefined;
    if (values.length === 0) {
      ctx.error(node.pos, path, `payload "${name}" has no values; give at least one`);
      return undefined;
    }
    return { name, values, source: { kind: 'inline' }, pos: entry.key.pos };
  }
  if (node.kind === 'map') return aggressionLevels(ctx, entry, path);
  if (node.kind !== 'scalar') {
    ctx.error(node.pos, path, `payload "${name}" needs a list of values or the path of a payload file`);
    return undefined;
  }
  const lines = node.text.split('\n');
  if (lines.length >= 2) {
    ctx.checkOastMarkers(node, path);
    const values: TemplateString[] = [];
    let start = 0;
    for (const line of lines) {
      const value = compileScalarPart(ctx, node, start, line, path);
      if (value !== undefined) values.push(value);
      start += line.length + 1;
    }
    if (values.length < lines.length) return undefined;
    return { name, values, source: { kind: 'inline' }, pos: entry.key.pos };
  }
  const reference = node.text.trim();
  if (reader === undefined) {
    ctx.error(node.pos, path, `payload file "${reference}" cannot be read here`);
    return undefined;
  }
  const read = reader.read(reference, ctx.file);
  if ('error' in read) {
    ctx.error(node.pos, path, read.error);
    return undefined;
  }
  if (read.values.length === 0) {
    ctx.error(node.pos, path, `payload file "${reference}" (${read.path}) holds no values`);
    return undefined;
  }
  const values: TemplateString[] = [];
  for (const [i, text] of read.values.entries()) {
    const where = `value ${i + 1} of payload file "${reference}" (${shorten(text)})`;
    const value = compileExternal(ctx, text, node.pos, path, where);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return { name, values, source: { kind: 'file', path: read.path }, pos: entry.key.pos };
}

/** Inline payload values: text or numbers (kept as written), null as the empty text. */
function listValues(
  ctx: ParseContext,
  items: readonly SourceNode[],
  path: Path,
): TemplateString[] | undefined {
  const values: TemplateString[] = [];
  let failed = false;
  items.forEach((item, i) => {
    if (item.kind === 'null') {
      values.push(EMPTY_TEXT);
      return;
    }
    if (item.kind !== 'scalar') {
      ctx.error(item.pos, [...path, i], 'payload values must be text or numbers, not lists or mappings');
      failed = true;
      return;
    }
    ctx.checkOastMarkers(item, [...path, i]);
    const value = compileScalar(ctx, item, [...path, i]);
    if (value === undefined) failed = true;
    else values.push(value);
  });
  return failed ? undefined : values;
}

function shorten(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

/**
 * nuclei's aggression levels (`default:`, `medium:`, `high:` lists); keyhole runs the default level,
 * which is also nuclei's default.
 */
function aggressionLevels(ctx: ParseContext, entry: MapEntry, path: Path): PayloadSet | undefined {
  const map = entry.value.kind === 'map' ? entry.value : undefined;
  if (map === undefined) return undefined;
  let values: TemplateString[] | undefined;
  for (const level of map.entries) {
    const levelName = level.key.text;
    if (!['default', 'medium', 'high'].includes(levelName)) {
      ctx.error(
        level.key.pos,
        [...path, levelName],
        `unknown aggression level "${levelName}"; expected default, medium or high`,
      );
      continue;
    }
    const seq = ctx.decode.list(level.value, [...path, levelName], 'a list of payload values');
    if (seq !== undefined && levelName === 'default') {
      values = listValues(ctx, seq.items, [...path, levelName]);
      if (values === undefined) return undefined;
    }
  }
  if (values === undefined || values.length === 0) {
    ctx.error(entry.value.pos, path, `payload "${entry.key.text}" needs a non-empty "default:" list`);
    return undefined;
  }
  return { name: entry.key.text, values, source: { kind: 'inline' }, pos: entry.key.pos };
}
