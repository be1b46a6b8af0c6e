/**
 * Version comparison with the rules of hashicorp/go-version, which nuclei's `compare_versions` uses.
 * Written here because npm's semver is stricter (it rejects `1.2`, `v1.2.3.4`, `1.0beta`) and orders
 * pre-releases differently; templates rely on go-version's leniency.
 *
 * Versions are `v?N(.N)*` with an optional pre-release (`-rc.1`, or letters directly: `1.0beta`) and
 * metadata (`+build`); missing segments count as zero (`1.2` equals `1.2.0`). Constraints are
 * comma-separated `op version` with op one of `=` (or none), `!=`, `>`, `<`, `>=`, `<=`, `~>`; a
 * pre-release version only satisfies constraints that name a pre-release of the same segments.
 */
import { GoRegex, RegexSyntaxError } from '../regex/index.js';

const VERSION_RAW =
  'v?([0-9]+(\\.[0-9]+)*?)' +
  '(-([0-9]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)|(-?([A-Za-z\\-~]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)))?' +
  '(\\+([0-9A-Za-z\\-~]+(\\.[0-9A-Za-z\\-~]+)*))?' +
  '?';

function mustCompile(source: string): GoRegex {
  const compiled = GoRegex.compile(source);
  if (compiled instanceof RegexSyntaxError) throw new Error(compiled.message);
  return compiled;
}

const VERSION = mustCompile(`^${VERSION_RAW}$`);
const CONSTRAINT = mustCompile(`^\\s*(=|!=|>=|<=|>|<|~>|)\\s*(${VERSION_RAW})\\s*$`);

const INT64_MAX = 2n ** 63n - 1n;

export class VersionError extends Error {}

export interface Version {
  readonly segments: readonly bigint[];
  /** How many segments were written (before padding to three). */
  readonly written: number;
  readonly pre: string;
  readonly metadata: string;
}

export function parseVersion(text: string): Version {
  const match = VERSION.find(text);
  if (match === undefined) throw new VersionError(`malformed version: ${text}`);
  const groups = match.groups;
  const written = (groups[1] as string).split('.');
  const segments = written.map((segment) => {
    const value = BigInt(segment);
    if (value > INT64_MAX) throw new VersionError(`version segment out of range: ${segment}`);
    return value;
  });
  while (segments.length < 3) segments.push(0n);
  const pre = groups[7] || groups[4] || '';
  return { segments, written: written.length, pre, metadata: groups[10] ?? '' };
}

function canonical(version: Version): string {
  let text = version.segments.join('.');
  if (version.pre !== '') text += `-${version.pre}`;
  if (version.metadata !== '') text += `+${version.metadata}`;
  return text;
}

function equalSegments(a: Version, b: Version): boolean {
  return (
    a.segments.length === b.segments.length && a.segments.every((segment, i) => segment === b.segments[i])
  );
}

/** -1, 0 or 1 as `a` is lower than, equal to or greater than `b`. */
export function compareVersions(a: Version, b: Version): number {
  if (canonical(a) === canonical(b)) return 0;
  if (equalSegments(a, b)) {
    if (a.pre === '' && b.pre === '') return 0;
    if (a.pre === '') return 1;
    if (b.pre === '') return -1;
    return comparePrereleases(a.pre, b.pre);
  }
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    if (i >= a.segments.length) return b.segments.slice(i).every((s) => s === 0n) ? 0 : -1;
    if (i >= b.segments.length) return a.segments.slice(i).every((s) => s === 0n) ? 0 : 1;
    const left = a.segments[i] as bigint;
    const right = b.segments[i] as bigint;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

function comparePrereleases(a: string, b: string): number {
  if (a === b) return 0;
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const result = comparePart(left[i] ?? '', right[i] ?? '');
    if (result !== 0) return result;
  }
  return 0;
}

function comparePart(a: string, b: string): number {
  if (a === b) return 0;
  const aNumeric = /^[-+]?\d+$/.test(a);
  const bNumeric = /^[-+]?\d+$/.test(b);
  if (a === '') return bNumeric ? -1 : 1;
  if (b === '') return aNumeric ? 1 : -1;
  if (aNumeric && !bNumeric) return -1;
  if (!aNumeric && bNumeric) return 1;
  if (!aNumeric && !bNumeric) return a > b ? 1 : -1;
  return BigInt(a) > BigInt(b) ? 1 : -1;
}

type Operator = '=' | '!=' | '>' | '<' | '>=' | '<=' | '~>';

export interface Constraint {
  readonly operator: Operator;
  readonly version: Version;
}

export function parseConstraints(text: string): Constraint[] {
  return text.split(',').map((single) => {
    const match = CONSTRAINT.find(single);
    if (match === undefined) throw new VersionError(`malformed constraint: ${single}`);
    const operator = (match.groups[1] || '=') as Operator;
    return { operator, version: parseVersion(match.groups[2] as string) };
  });
}

/** A constraint with a pre-release only admits pre-releases of the same segments, and vice versa. */
function prereleaseCheck(version: Version, constraint: Version): boolean {
  const versionPre = version.pre !== '';
  const constraintPre = constraint.pre !== '';
  if (constraintPre && versionPre) return equalSegments(version, constraint);
  if (!constraintPre && versionPre) return false;
  return true;
}

function satisfies(version: Version, { operator, version: bound }: Constraint): boolean {
  const order = compareVersions(version, bound);
  switch (operator) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>':
      return prereleaseCheck(version, bound) && order === 1;
    case '<':
      return prereleaseCheck(version, bound) && order === -1;
    case '>=':
      return prereleaseCheck(version, bound) && order >= 0;
    case '<=':
      return prereleaseCheck(version, bound) && order <= 0;
    case '~>':
      return pessimistic(version, bound);
  }
}

function pessimistic(version: Version, bound: Version): boolean {
  if (!prereleaseCheck(version, bound) || (bound.pre !== '' && version.pre === '')) return false;
  if (compareVersions(version, bound) < 0) return false;
  const length = bound.segments.length;
  if (length > version.segments.length) return false;
  for (let i = 0; i < bound.written - 1; i++) {
    if (version.segments[i] !== bound.segments[i]) return false;
  }
  return (bound.segments[length - 1] as bigint) <= (version.segments[length - 1] as bigint);
}

export function satisfiesAll(version: Version, constraints: readonly Constraint[]): boolean {
  return constraints.every((constraint) => satisfies(version, constraint));
}
