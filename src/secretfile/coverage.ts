import { defaultPort, type Scheme } from '../http/index.js';
import { parseTargetUrl, TargetError } from '../targets/index.js';
import { entryOf, type SecretEntry } from './entries.js';
import { domainItemMatches, type MatchKey, matchKey } from './host.js';
import { SecretIndex } from './lookup.js';
import type { ScopedSecret, SecretSet } from './model.js';

/** A scan target as secret matching sees it; the scheme of one written without is guessed from its port. */
export interface CoveredTarget {
  /** As given. */
  readonly target: string;
  readonly key: MatchKey;
}

export interface Coverage {
  /** The first target each entry applies to (the entry its own requests get), in entry order. */
  readonly firstTarget: ReadonlyMap<SecretEntry, CoveredTarget>;
  /** Entries that apply to none of the targets, each with the likely reason when there is one. */
  readonly unmatched: readonly { readonly entry: SecretEntry; readonly cause: string | undefined }[];
  /** Targets that no entry applies to. */
  readonly uncovered: readonly string[];
}

/**
 * Which entries apply to which targets, before any request: what a scan warns about (an entry that
 * applies to no target, a target that gets no secret) and where `-ps` logs in. An entry applies to
 * a target when the target's own requests get it: matched, and not preceded by another entry that
 * matches too. Templates may also send requests to other hosts; those are decided as they go out.
 */
export function coverage(set: SecretSet, targets: readonly string[]): Coverage {
  const index = new SecretIndex(set.entries);
  const firstTarget = new Map<SecretEntry, CoveredTarget>();
  const uncovered: string[] = [];
  const keys: CoveredTarget[] = [];
  for (const target of targets) {
    const key = targetKey(target);
    if (key === undefined) continue;
    const covered = { target, key };
    keys.push(covered);
    const secret = index.lookup(key);
    if (secret === undefined) uncovered.push(target);
    else if (!firstTarget.has(entryOf(secret))) firstTarget.set(entryOf(secret), covered);
  }
  const unmatched: { entry: SecretEntry; cause: string | undefined }[] = [];
  const reported = new Set<SecretEntry>();
  for (const secret of set.entries) {
    const entry = entryOf(secret);
    if (firstTarget.has(entry) || reported.has(entry)) continue;
    reported.add(entry);
    unmatched.push({ entry, cause: likelyCause(secret, keys, index) });
  }
  return { firstTarget, unmatched, uncovered };
}

/** The match key of a target as written; undefined when it is not one (the scan reports it). */
export function targetKey(target: string): MatchKey | undefined {
  const parsed = parseTargetUrl(target);
  if (parsed instanceof TargetError) return undefined;
  const written = parsed.port === '' ? undefined : Number(parsed.port);
  const scheme = schemeOf(parsed.scheme, written);
  return scheme === undefined ? undefined : matchKey(scheme, parsed.hostname, written ?? defaultPort(scheme));
}

/** A target's scheme; without one the probe decides between https and http: port 80 makes http likely. */
function schemeOf(written: string, port: number | undefined): Scheme | undefined {
  if (written === 'http' || written === 'https') return written;
  if (written !== '') return undefined;
  return port === 80 || port === undefined ? 'http' : 'https';
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why an entry that matches no target was probably meant to: a missing port, a shadowing entry. */
function likelyCause(
  secret: ScopedSecret,
  targets: readonly CoveredTarget[],
  index: SecretIndex,
): string | undefined {
  const own = new SecretIndex([secret]);
  const shadowed = targets.find((t) => own.lookup(t.key) !== undefined);
  if (shadowed !== undefined) {
    const first = index.lookup(shadowed.key);
    if (first !== undefined && entryOf(first) !== entryOf(secret)) {
      return `${entryOf(first).label} comes first for ${shadowed.target} (a request gets the first entry that matches it)`;
    }
  }
  if (secret.scope.kind === 'domains-regex') {
    const withPort = targets.find(
      (t) =>
        !t.key.defaultPort &&
        secret.scope.kind === 'domains-regex' &&
        secret.scope.patterns.some((p) => p.test(t.key.host)),
    );
    return withPort === undefined
      ? undefined
      : `its patterns are matched against host:port for a target on a port that is not the scheme's default (${withPort.key.text}); add the port, or (:\\d+)?`;
  }
  for (const item of secret.scope.domains) {
    if (item.port !== undefined) continue;
    const onItsPort = targets.find((t) => t.key.host === item.host && !t.key.defaultPort);
    if (onItsPort !== undefined) {
      return `${item.host} is written without the port of the target ${onItsPort.target}; write "${onItsPort.key.text}"`;
    }
  }
  const named = new Set(secret.scope.domains.map((item) => item.host));
  for (const item of secret.scope.domains) {
    if (!LOOPBACK_NAMES.has(item.host)) continue;
    // The same port under another loopback name the entry does not list.
    const other = targets.find(
      (t) =>
        LOOPBACK_NAMES.has(t.key.host) &&
        !named.has(t.key.host) &&
        domainItemMatches({ host: t.key.host, port: item.port }, t.key),
    );
    if (other !== undefined) {
      return `the targets name the loopback host ${other.key.host}, and ${item.host} is another host name; add "${other.key.text}"`;
    }
  }
  return undefined;
}
