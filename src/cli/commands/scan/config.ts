/** The flags of `keyhole scan`, read into checked values; every mistake is a `UserError` naming its flag. */

import type { OastPlan } from '../../../scan/index.js';
import { UserError } from '../../exit.js';
import type { ExportPaths } from '../../shared/exports.js';
import { numberFlag, type RunConfig, runConfig } from '../../shared/request-config.js';
import { DEFAULT_CHUNK_SIZE, DEFAULT_STATS_INTERVAL, type ScanFlags } from './command.js';
import { filtersGiven, type SelectionConfig, selectionConfig } from './filters.js';
import { oastConfig } from './oast-config.js';

export interface ScanConfig extends RunConfig {
  /** `-u` values, as given. */
  readonly targets: readonly string[];
  readonly list: string | undefined;
  readonly assets: readonly string[];
  readonly templates: readonly string[];
  readonly output: string | undefined;
  /** `-stats`, `-si`, `-sj`: progress lines every `intervalSeconds`, as text or JSON. */
  readonly stats: { readonly json: boolean; readonly intervalSeconds: number } | undefined;
  /** `-me`, `-se`, `-je`. */
  readonly exports: ExportPaths;
  readonly matcherStatus: boolean;
  readonly name: string | undefined;
  readonly store: boolean;
  /** `--rescan SCAN_ID`: the targets and templates come from that stored scan. */
  readonly rescan: string | undefined;
  /** `-resume SCAN_ID`: that stored scan goes on where it stopped. */
  readonly resume: string | undefined;
  /** `--queue`: the scan is queued for workers, in chunks of this many targets. */
  readonly queue: { readonly chunkSize: number } | undefined;
  /** The templates directory and the filters that choose templates from `templates` (or it). */
  readonly selection: SelectionConfig;
  /** Where out-of-band callbacks go; undefined with -ni. */
  readonly oast: OastPlan | undefined;
}

/** The flags given: `--team` left out when it was not given (see givenTeam). */
type GivenFlags = Partial<ScanFlags>;

/** `cwd` resolves the files flags name that are read here (the listener's certificate). */
export function scanConfig(flags: GivenFlags, cwd?: string): ScanConfig {
  const config: ScanConfig = {
    ...runConfig(flags),
    targets: flags.target ?? [],
    list: flags.list,
    assets: flags.asset ?? [],
    templates: flags.templates ?? [],
    output: flags.output,
    stats: statsConfig(flags),
    exports: { markdown: flags.markdownExport, sarif: flags.sarifExport, json: flags.jsonExport },
    matcherStatus: flags.matcherStatus === true,
    name: flags.name,
    store: flags.store !== false,
    rescan: flags.rescan,
    resume: flags.resume,
    queue: queueConfig(flags),
    selection: selectionConfig(flags),
    oast: oastConfig(flags, cwd),
  };
  if (config.rescan !== undefined) checkRescan(config);
  if (config.resume !== undefined) checkResume(config, flags);
  if (!config.store) checkNoStore(flags);
  return config;
}

/** nuclei's rules: `-sj` implies `-stats`, and `-stats` with `-j` prints JSON. */
function statsConfig(flags: GivenFlags): ScanConfig['stats'] {
  if (flags.stats !== true && flags.statsJson !== true) {
    if (flags.statsInterval !== undefined)
      throw new UserError('-si sets the interval of -stats: give -stats too');
    return undefined;
  }
  return {
    json: flags.statsJson === true || flags.jsonl === true,
    intervalSeconds: numberFlag(flags.statsInterval, '-si', DEFAULT_STATS_INTERVAL, {
      min: 1,
      max: 86_400,
      integer: true,
    }),
  };
}

/**
 * `--no-store` records nothing, so the flags that say how to record a scan would be ignored: they
 * are refused instead. `--team` and `--db` still choose where `--asset` reads its list.
 */
function checkNoStore(flags: GivenFlags): void {
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
function queueConfig(flags: GivenFlags): ScanConfig['queue'] {
  if (flags.queue !== true) {
    if (flags.chunkSize !== undefined) throw new UserError('--chunk-size goes with --queue');
    return undefined;
  }
  const workerFlags = [
    flags.prefetchSecrets === true ? '-ps' : undefined,
    flags.header !== undefined ? '-H' : undefined,
    flags.var !== undefined ? '-var' : undefined,
    flags.concurrency !== undefined ? '-c' : undefined,
    flags.bulkSize !== undefined ? '-bs' : undefined,
    flags.rateLimit !== undefined ? '-rl' : undefined,
    flags.timeout !== undefined ? '-timeout' : undefined,
    flags.retries !== undefined ? '-retries' : undefined,
    flags.maxHostError !== undefined ? '-mhe' : undefined,
    flags.mhe === false ? '-nmhe' : undefined,
    flags.proxy !== undefined ? '-proxy' : undefined,
    ...sendingFlagsGiven(flags),
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
    flags.stats === true ? '-stats' : undefined,
    flags.statsJson === true ? '-sj' : undefined,
    flags.markdownExport !== undefined ? '-me' : undefined,
    flags.sarifExport !== undefined ? '-se' : undefined,
    flags.jsonExport !== undefined ? '-je' : undefined,
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

/** The flags given that choose targets or templates (a stored scan, rescanned or resumed, has its own). */
function scanInputsGiven(config: ScanConfig): string[] {
  return [
    config.targets.length > 0 ? '-u' : undefined,
    config.list === undefined ? undefined : '-l',
    config.assets.length > 0 ? '--asset' : undefined,
    config.templates.length > 0 ? '-t' : undefined,
    ...filtersGiven(config.selection),
  ].filter((flag) => flag !== undefined);
}

/** A rescan runs what the stored scan ran: targets and templates given as well would be ignored. */
function checkRescan(config: ScanConfig): void {
  const given = scanInputsGiven(config);
  if (given.length > 0) {
    throw new UserError(
      `--rescan runs the targets and templates of the stored scan; leave out ${given.join(', ')}`,
    );
  }
  if (!config.store) throw new UserError('--rescan records a new scan in the store; leave out --no-store');
}

/** The flags given that change what the templates send: on a queued scan, the workers' to give. */
function sendingFlagsGiven(flags: GivenFlags): string[] {
  const given: [unknown, string][] = [
    [flags.followRedirects, '-fr'],
    [flags.followHostRedirects, '-fhr'],
    [flags.maxRedirects, '-mr'],
    [flags.disableRedirects, '-dr'],
    [flags.sni, '-sni'],
    [flags.attackType, '-at'],
    [flags.responseSizeRead, '-rsr'],
    [flags.stopAtFirstMatch, '-spm'],
  ];
  return given.filter(([value]) => value !== undefined).map(([, flag]) => flag);
}

/** A resumed scan goes on as it was recorded: what would change it, or record elsewhere, is refused. */
function checkResume(config: ScanConfig, flags: GivenFlags): void {
  const given = [
    ...scanInputsGiven(config),
    config.rescan === undefined ? undefined : '--rescan',
    config.name === undefined ? undefined : '--name',
    flags.queue === true ? '--queue' : undefined,
    config.store ? undefined : '--no-store',
  ].filter((flag) => flag !== undefined);
  if (given.length > 0) {
    throw new UserError(
      `-resume goes on with the stored scan, its targets and templates, in the store; leave out ${given.join(', ')}`,
    );
  }
}
