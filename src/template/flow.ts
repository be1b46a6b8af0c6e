import type { FlowExpression } from './model.js';

/** A block reference in a flow: 1-based index (`http(2)`) or block id (`http("login")`). */
export type FlowRef =
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'id'; readonly id: string };

export type FlowSyntax =
  | { readonly kind: 'http'; readonly ref: FlowRef }
  | { readonly kind: 'and' | 'or'; readonly left: FlowSyntax; readonly right: FlowSyntax };

type Token =
  | { kind: 'http' | '(' | ')' | '&&' | '||' | 'end' }
  | { kind: 'number' | 'string'; value: string };

/**
 * Parses the plainest `flow:`, `http(N)` / `http("id")` calls combined with `&&`, `||` and
 * parentheses (a trailing `;` allowed), which runs without a script engine. Returns undefined for
 * anything else (loops, variables, helper calls), which runs as JavaScript.
 */
export function parseFlow(source: string): FlowSyntax | undefined {
  const tokens = tokenize(source);
  if (tokens === undefined) return undefined;
  let at = 0;
  const peek = (): Token => tokens[at] ?? { kind: 'end' };
  const next = (): Token => tokens[at++] ?? { kind: 'end' };

  const primary = (): FlowSyntax | undefined => {
    const token = next();
    if (token.kind === '(') {
      const inner = orExpr();
      return next().kind === ')' ? inner : undefined;
    }
    if (token.kind !== 'http' || next().kind !== '(') return undefined;
    const arg = next();
    if (next().kind !== ')') return undefined;
    if (arg.kind === 'number') return { kind: 'http', ref: { kind: 'index', index: Number(arg.value) } };
    if (arg.kind === 'string') return { kind: 'http', ref: { kind: 'id', id: arg.value } };
    return undefined;
  };
  const andExpr = (): FlowSyntax | undefined => {
    let left = primary();
    while (left !== undefined && peek().kind === '&&') {
      next();
      const right = primary();
      left = right === undefined ? undefined : { kind: 'and', left, right };
    }
    return left;
  };
  const orExpr = (): FlowSyntax | undefined => {
    let left = andExpr();
    while (left !== undefined && peek().kind === '||') {
      next();
      const right = andExpr();
      left = right === undefined ? undefined : { kind: 'or', left, right };
    }
    return left;
  };
  const expression = orExpr();
  return expression !== undefined && peek().kind === 'end' ? expression : undefined;
}

function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  const text = source.trim().replace(/;\s*$/, '');
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      i += space[0].length;
      continue;
    }
    if (rest.startsWith('&&') || rest.startsWith('||')) {
      tokens.push({ kind: rest.slice(0, 2) as '&&' | '||' });
      i += 2;
      continue;
    }
    const char = rest[0];
    if (char === '(' || char === ')') {
      tokens.push({ kind: char });
      i++;
      continue;
    }
    const word = /^http\b/.exec(rest);
    if (word !== null) {
      tokens.push({ kind: 'http' });
      i += 4;
      continue;
    }
    const number = /^\d+/.exec(rest);
    if (number !== null) {
      tokens.push({ kind: 'number', value: number[0] });
      i += number[0].length;
      continue;
    }
    const string = /^(["'])([^"'\\]*)\1/.exec(rest);
    if (string !== null) {
      tokens.push({ kind: 'string', value: string[2] ?? '' });
      i += string[0].length;
      continue;
    }
    return undefined;
  }
  return tokens;
}

/** Resolves block references to 0-based block indexes; returns the first bad reference otherwise. */
export function resolveFlow(
  syntax: FlowSyntax,
  blockIds: readonly (string | undefined)[],
): FlowExpression | { readonly bad: FlowRef } {
  if (syntax.kind === 'http') {
    const ref = syntax.ref;
    const block = ref.kind === 'index' ? ref.index - 1 : blockIds.indexOf(ref.id);
    if (block < 0 || block >= blockIds.length) return { bad: ref };
    return { kind: 'http', block };
  }
  const left = resolveFlow(syntax.left, blockIds);
  if ('bad' in left) return left;
  const right = resolveFlow(syntax.right, blockIds);
  if ('bad' in right) return right;
  return { kind: syntax.kind, left, right };
}

/**
 * The 0-based block a flow's `http(ref)` runs, `ref` being the argument as text (`"2"`, `"login"`).
 * nuclei fills one lookup per protocol, block by block, with the block's id and then its 1-based
 * index, so a later entry wins over an earlier one with the same key.
 */
export function flowBlockIndex(ref: string, blockIds: readonly (string | undefined)[]): number | undefined {
  let found: number | undefined;
  blockIds.forEach((id, index) => {
    if (id === ref || String(index + 1) === ref) found = index;
  });
  return found;
}
