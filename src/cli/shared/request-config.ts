/**
 * The flags of the commands that send template requests (`scan`, `retest`, `worker`), read into
 * checked values; every mistake is a `UserError` naming its flag.
 */
import type { SendingOverrides } from '../../engine/index.js';
import { type HeaderField, headerNameProblem, headerValueProblem } from '../../http/index.js';
import { DEFAULT_TEAM } from '../../store/index.js';
import type { AttackType } from '../../template/index.js';
import { UserError } from '../exit.js';
import { REQUEST_DEFAULTS, type RunFlags } from './request-options.js';

/** What the shared flags say, checked. */
export interface RunConfig {
  readonly secretFiles: readonly string[];
  readonly prefetch: boolean;
  readonly headers: readonly HeaderField[];
  readonly variables: Readonly<Record<string, string>>;
  /** Template runs in flight at most (`-c`). */
  readonly concurrency: number;
  /** Runs of one template in flight at most (`-bs`). */
  readonly bulkSize: number;
  /** Requests per second; undefined: no limit (`-rl 0`). */
  readonly rateLimit: number | undefined;
  readonly timeoutMs: number;
  readonly retries: number;
  /** `-mhe`; undefined with `-nmhe` (or `-mhe 0`): hosts are never skipped. */
  readonly maxHostErrors: number | undefined;
  /** `-proxy`: proxy URLs and files of them, as given (see proxy.ts). */
  readonly proxies: readonly string[];
  /** `-v`, `-debug`, `-debug-req`, `-debug-resp`. */
  readonly dump: { readonly lines: boolean; readonly requests: boolean; readonly responses: boolean };
  /** False with `-nc`. */
  readonly colour: boolean;
  /** nuclei's flags that change what the templates send. */
  readonly overrides: SendingOverrides;
  readonly jsonl: boolean;
  readonly silent: boolean;
  readonly redact: boolean;
  readonly team: string;
  readonly db: string | undefined;
}

export function runConfig(flags: RunFlags): RunConfig {
  const rateLimit = numberFlag(flags.rateLimit, '-rl/-rate-limit', REQUEST_DEFAULTS.rateLimit, { min: 0 });
  return {
    secretFiles: flags.secretFile ?? [],
    prefetch: flags.prefetchSecrets === true,
    headers: (flags.header ?? []).map(parseHeader),
    variables: Object.fromEntries((flags.var ?? []).map(parseVariable)),
    concurrency: numberFlag(flags.concurrency, '-c/-concurrency', REQUEST_DEFAULTS.concurrency, {
      min: 1,
      max: 10_000,
      integer: true,
    }),
    bulkSize: numberFlag(flags.bulkSize, '-bs/-bulk-size', REQUEST_DEFAULTS.bulkSize, {
      min: 1,
      max: 10_000,
      integer: true,
    }),
    rateLimit: rateLimit === 0 ? undefined : rateLimit,
    timeoutMs:
      numberFlag(flags.timeout, '-timeout', REQUEST_DEFAULTS.timeoutSeconds, { min: 0.001, max: 86_400 }) *
      1000,
    retries: numberFlag(flags.retries, '-retries', REQUEST_DEFAULTS.retries, {
      min: 0,
      max: 100,
      integer: true,
    }),
    maxHostErrors: maxHostErrors(flags),
    proxies: flags.proxy ?? [],
    dump: {
      lines: flags.verbose === true,
      requests: flags.debug === true || flags.debugReq === true,
      responses: flags.debug === true || flags.debugResp === true,
    },
    colour: flags.color !== false,
    overrides: sendingOverrides(flags),
    jsonl: flags.jsonl === true,
    silent: flags.silent === true,
    redact: flags.redact !== false,
    team: flags.team ?? DEFAULT_TEAM,
    db: flags.db,
  };
}

function maxHostErrors(flags: RunFlags): number | undefined {
  const max = numberFlag(flags.maxHostError, '-mhe/-max-host-error', REQUEST_DEFAULTS.maxHostErrors, {
    min: 0,
    max: 1_000_000,
    integer: true,
  });
  return flags.mhe === false || max === 0 ? undefined : max;
}

const ATTACK_TYPES: readonly AttackType[] = ['batteringram', 'pitchfork', 'clusterbomb'];

/** `-fr`, `-fhr`, `-mr`, `-dr`, `-sni`, `-at`, `-rsr` and `-spm`, checked; only those given are set. */
export function sendingOverrides(flags: RunFlags): SendingOverrides {
  const overrides: { -readonly [K in keyof SendingOverrides]: SendingOverrides[K] } = {};
  const redirects = redirectOverride(flags);
  if (redirects !== undefined) overrides.redirects = redirects;
  if (flags.sni !== undefined) {
    const name = flags.sni.trim();
    if (name === '' || /[\s/:@]/.test(name)) {
      throw new UserError(`-sni takes a host name such as app.example.com, got ${JSON.stringify(flags.sni)}`);
    }
    overrides.tlsServerName = name;
  }
  if (flags.attackType !== undefined) {
    const attack = ATTACK_TYPES.find((type) => type === flags.attackType?.trim().toLowerCase());
    if (attack === undefined) {
      throw new UserError(
        `-at/-attack-type takes ${ATTACK_TYPES.join(', ')}, got ${JSON.stringify(flags.attackType)}`,
      );
    }
    overrides.attack = attack;
  }
  const readSize = numberFlag(flags.responseSizeRead, '-rsr/-response-size-read', 0, {
    min: 0,
    integer: true,
  });
  if (readSize > 0) overrides.maxBodyBytes = readSize;
  if (flags.stopAtFirstMatch === true) overrides.stopAtFirstMatch = true;
  return overrides;
}

function redirectOverride(flags: RunFlags): SendingOverrides['redirects'] {
  const follow =
    flags.followHostRedirects === true ? 'same-host' : flags.followRedirects === true ? 'all' : undefined;
  if (flags.disableRedirects === true) {
    if (follow !== undefined) {
      const given = flags.followHostRedirects === true ? '-fhr' : '-fr';
      throw new UserError(
        `-dr (follow no redirect) and ${given} (follow them) contradict each other; leave one out`,
      );
    }
    if (flags.maxRedirects !== undefined)
      throw new UserError('-dr follows no redirect, so -mr would do nothing; leave it out');
    return { follow: 'none' };
  }
  if (follow === undefined) {
    if (flags.maxRedirects !== undefined) {
      throw new UserError(
        "-mr/-max-redirects applies with -fr or -fhr; a template's own redirects use its max-redirects",
      );
    }
    return undefined;
  }
  if (flags.maxRedirects === undefined) return { follow };
  return {
    follow,
    max: numberFlag(flags.maxRedirects, '-mr/-max-redirects', 0, { min: 1, max: 20, integer: true }),
  };
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
