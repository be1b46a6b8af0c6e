/** The flags of `keyhole scan`, read into checked values; every mistake is a `UserError` naming its flag. */
import { type HeaderField, headerNameProblem, headerValueProblem } from '../http/index.js';
import { DEFAULT_TEAM } from '../store/index.js';
import { UserError } from './exit.js';

/**
 * The flags every command that sends template requests takes (`scan`, `retest`): secrets, request
 * settings, output and the store, as commander hands them over (repeatable ones collected, numbers
 * still text).
 */
export interface RunFlags {
  readonly secretFile?: string[];
  readonly prefetchSecrets?: boolean;
  readonly header?: string[];
  readonly var?: string[];
  readonly concurrency?: string;
  readonly rateLimit?: string;
  readonly timeout?: string;
  readonly retries?: string;
  readonly jsonl?: boolean;
  readonly silent?: boolean;
  /** False with `--no-redact`. */
  readonly redact?: boolean;
  readonly team?: string;
  readonly db?: string;
}

/** The flags of `keyhole scan`. */
export interface ScanFlags extends RunFlags {
  readonly target?: string[];
  readonly list?: string;
  readonly asset?: string[];
  readonly templates?: string[];
  readonly output?: string;
  readonly matcherStatus?: boolean;
  readonly name?: string;
  /** False with `--no-store`. */
  readonly store?: boolean;
  readonly rescan?: string;
  readonly queue?: boolean;
  readonly chunkSize?: string;
}

/** Targets per chunk of a queued scan (`--chunk-size`). */
export const DEFAULT_CHUNK_SIZE = 200;

export const DEFAULTS = {
  concurrency: 25,
  rateLimit: 150,
  timeoutSeconds: 10,
  retries: 1,
} as const;

/** What the shared flags say, checked. */
export interface RunConfig {
  readonly secretFiles: readonly string[];
  readonly prefetch: boolean;
  readonly headers: readonly HeaderField[];
  readonly variables: Readonly<Record<string, string>>;
  readonly concurrency: number;
  /** Requests per second; undefined: no limit (`-rl 0`). */
  readonly rateLimit: number | undefined;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly jsonl: boolean;
  readonly silent: boolean;
  readonly redact: boolean;
  readonly team: string;
  readonly db: string | undefined;
}

export interface ScanConfig extends RunConfig {
  /** `-u` values, as given. */
  readonly targets: readonly string[];
  readonly list: string | undefined;
  readonly assets: readonly string[];
  readonly templates: readonly string[];
  readonly output: string | undefined;
  readonly matcherStatus: boolean;
  readonly name: string | undefined;
  readonly store: boolean;
  /** `--rescan SCAN_ID`: the targets and templates come from that stored scan. */
  readonly rescan: string | undefined;
  /** `--queue`: the scan is queued for workers, in chunks of this many targets. */
  readonly queue: { readonly chunkSize: number } | undefined;
}

export function runConfig(flags: RunFlags): RunConfig {
  const rateLimit = numberFlag(flags.rateLimit, '-rl/-rate-limit', DEFAULTS.rateLimit, { min: 0 });
  return {
    secretFiles: flags.secretFile ?? [],
    prefetch: flags.prefetchSecrets === true,
    headers: (flags.header ?? []).map(parseHeader),
    variables: Object.fromEntries((flags.var ?? []).map(parseVariable)),
    concurrency: numberFlag(flags.concurrency, '-c/-concurrency', DEFAULTS.concurrency, {
      min: 1,
      max: 10_000,
      integer: true,
    }),
    rateLimit: rateLimit === 0 ? undefined : rateLimit,
    timeoutMs:
      numberFlag(flags.timeout, '-timeout', DEFAULTS.timeoutSeconds, { min: 0.001, max: 86_400 }) * 1000,
    retries: numberFlag(flags.retries, '-retries', DEFAULTS.retries, { min: 0, max: 100, integer: true }),
    jsonl: flags.jsonl === true,
    silent: flags.silent === true,
    redact: flags.redact !== false,
    team: flags.team ?? DEFAULT_TEAM,
    db: flags.db,
  };
}

export function scanConfig(flags: ScanFlags): ScanConfig {
  const config: ScanConfig = {
    ...runConfig(flags),
    targets: flags.target ?? [],
    list: flags.list,
    assets: flags.asset ?? [],
    templates: flags.templates ?? [],
    output: flags.output,
    matcherStatus: flags.matcherStatus === true,
    name: flags.name,
    store: flags.store !== false,
    rescan: flags.rescan,
    queue: queueConfig(flags),
  };
  if (config.rescan !== undefined) checkRescan(config);
  if (!config.store) checkNoStore(flags);
  return config;
}

/**
 * `--no-store` records nothing, so the flags that say how to record a scan would be ignored: they
 * are refused instead. `--team` and `--db` still choose where `--asset` reads its list.
 */
function checkNoStore(flags: ScanFlags): void {
  const readsAssets = (flags.asset ?? []).length > 0;
  const ignored = [
    flags.name !== undefined ? '--name' : undefined,
    flags.team !== undefined && !readsAssets ? '--team' : undefined,
    flags.db !== undefined && !readsAssets ? '--db' : undefined,
  ].filter((flag) => flag !== undefined);
  if (ignored.length > 0) {
    throw new UserError(
      `--no-store records nothing, so ${ignored.join(', ')} would do nothing: leave out ${ignored.join(', ')} or --no-store`,
    );
  }
}

/**
 * `--queue`: the scan runs on workers, with their own secrets and request settings, so the flags
 * that shape requests or print findings would do nothing here and are refused rather than ignored.
 */
function queueConfig(flags: ScanFlags): ScanConfig['queue'] {
  if (flags.queue !== true) {
    if (flags.chunkSize !== undefined) throw new UserError('--chunk-size goes with --queue');
    return undefined;
  }
  const workerFlags = [
    flags.prefetchSecrets === true ? '-ps' : undefined,
    flags.header !== undefined ? '-H' : undefined,
    flags.var !== undefined ? '-var' : undefined,
    flags.concurrency !== undefined ? '-c' : undefined,
    flags.rateLimit !== undefined ? '-rl' : undefined,
    flags.timeout !== undefined ? '-timeout' : undefined,
    flags.retries !== undefined ? '-retries' : undefined,
    flags.redact === false ? '--no-redact' : undefined,
  ].filter((flag) => flag !== undefined);
  if (workerFlags.length > 0) {
    throw new UserError(
      `--queue leaves the requests to the workers: give ${workerFlags.join(', ')} to keyhole worker instead`,
    );
  }
  const outputFlags = [
    flags.output !== undefined ? '-o' : undefined,
    flags.jsonl === true ? '-j' : undefined,
    flags.matcherStatus === true ? '-ms' : undefined,
  ].filter((flag) => flag !== undefined);
  if (outputFlags.length > 0) {
    throw new UserError(
      `--queue prints only the scan id; findings are in the store (keyhole findings list --scan ID): leave out ${outputFlags.join(', ')}`,
    );
  }
  if (flags.store === false)
    throw new UserError('--queue records the scan in the store; leave out --no-store');
  return {
    chunkSize: numberFlag(flags.chunkSize, '--chunk-size', DEFAULT_CHUNK_SIZE, {
      min: 1,
      max: 100_000,
      integer: true,
    }),
  };
}

/** A rescan runs what the stored scan ran: targets and templates given as well would be ignored. */
function checkRescan(config: ScanConfig): void {
  const given = [
    config.targets.length > 0 ? '-u' : undefined,
    config.list === undefined ? undefined : '-l',
    config.assets.length > 0 ? '--asset' : undefined,
    config.templates.length > 0 ? '-t' : undefined,
  ].filter((flag) => flag !== undefined);
  if (given.length > 0) {
    throw new UserError(
      `--rescan runs the targets and templates of the stored scan; leave out ${given.join(', ')}`,
    );
  }
  if (!config.store) throw new UserError('--rescan records a new scan in the store; leave out --no-store');
}

/** A numeric flag's value, `fallback` when not given; out of range or not a number: a `UserError` naming the flag. */
export function numberFlag(
  text: string | undefined,
  flag: string,
  fallback: number,
  range: { min: number; max?: number; integer?: boolean },
): number {
  if (text === undefined) return fallback;
  const value = Number(text.trim());
  const kind = range.integer === true ? 'a whole number' : 'a number';
  const bounds = range.max === undefined ? `${range.min} or more` : `from ${range.min} to ${range.max}`;
  if (
    text.trim() === '' ||
    !Number.isFinite(value) ||
    (range.integer === true && !Number.isInteger(value)) ||
    value < range.min ||
    (range.max !== undefined && value > range.max)
  ) {
    throw new UserError(`${flag} takes ${kind} ${bounds}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `-H "Name: value"`. */
export function parseHeader(text: string): HeaderField {
  const colon = text.indexOf(':');
  if (colon <= 0) {
    throw new UserError(`-H takes "Name: value", got ${JSON.stringify(text)}; e.g. -H "X-Scan: keyhole"`);
  }
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  const problem = headerNameProblem(name) ?? headerValueProblem(value);
  if (problem !== undefined) throw new UserError(`-H ${JSON.stringify(text)}: ${problem}`);
  return [name, value];
}

/** `-var name=value`. */
export function parseVariable(text: string): [string, string] {
  const equals = text.indexOf('=');
  const name = equals < 0 ? '' : text.slice(0, equals).trim();
  if (name === '' || /\s/.test(name)) {
    throw new UserError(`-var takes name=value, got ${JSON.stringify(text)}; e.g. -var username=admin`);
  }
  return [name, text.slice(equals + 1)];
}
