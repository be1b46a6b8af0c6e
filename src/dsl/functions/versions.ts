/** `compare_versions(version, constraints…)` with hashicorp/go-version semantics. */
import { argumentError } from '../errors.js';
import {
  type Constraint,
  parseConstraints,
  parseVersion,
  satisfiesAll,
  type Version,
  VersionError,
} from '../goversion.js';
import type { DslValue } from '../value.js';
import { type HelperFunction, ranged, str, textArg } from './helper.js';

/**
 * Parsing goes through RE2 (versions come from responses, so the regex must be linear-time); templates
 * check the same constraints and see the same versions over and over, so parses are remembered.
 */
const CACHE_SIZE = 256;
const versions = new Map<string, Version | VersionError>();
const constraintLists = new Map<string, Constraint[] | VersionError>();

function remembered<T>(cache: Map<string, T | VersionError>, key: string, parse: (text: string) => T): T {
  let entry = cache.get(key);
  if (entry === undefined) {
    try {
      entry = parse(key);
    } catch (error) {
      if (!(error instanceof VersionError)) throw error;
      entry = error;
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, entry);
  }
  if (entry instanceof VersionError) throw entry;
  return entry;
}

function compareVersions(args: readonly DslValue[]): boolean {
  try {
    const version = remembered(versions, textArg(args, 0), parseVersion);
    const constraints = remembered(constraintLists, args.slice(1).map(str).join(','), parseConstraints);
    return satisfiesAll(version, constraints);
  } catch (error) {
    if (error instanceof VersionError) throw argumentError('compare_versions', error.message);
    throw error;
  }
}

export const versionFunctions: readonly HelperFunction[] = [
  ranged('compare_versions', 2, Number.POSITIVE_INFINITY, compareVersions),
];
