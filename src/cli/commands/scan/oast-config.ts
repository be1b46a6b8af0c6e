import { isIPv4 } from 'node:net';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { type OastPlan, PUBLIC_OAST_SERVERS } from '../../../scan/index.js';
import { UserError } from '../../exit.js';
import { numberFlag } from '../../shared/request-config.js';
import { readCertificateFiles } from '../oast/certificate-files.js';
import { listenAddress } from '../oast/command.js';
import { OAST_DEFAULTS, type ScanFlags } from './command.js';

/** The out-of-band flags, as `scan` and `worker` take them. */
type GivenFlags = Partial<
  Pick<
    ScanFlags,
    | 'interactsh'
    | 'interactshServer'
    | 'interactshToken'
    | 'interactionsCacheSize'
    | 'interactionsEviction'
    | 'interactionsPollDuration'
    | 'interactionsCooldownPeriod'
    | 'oastListen'
    | 'oastDomain'
    | 'oastDnsListen'
    | 'oastHttpsListen'
    | 'oastSmtpListen'
    | 'oastTlsCert'
    | 'oastTlsKey'
  >
>;

/**
 * Where the scan's out-of-band callbacks go: `-ni` none; `--oast-listen` keyhole's own listener in
 * this process; else `-iserver`, or nuclei's public servers when it is not given. Undefined with -ni.
 */
export function oastConfig(flags: GivenFlags, cwd = process.cwd()): OastPlan | undefined {
  const timing = {
    cacheSize: numberFlag(flags.interactionsCacheSize, '-interactions-cache-size', OAST_DEFAULTS.cacheSize, {
      min: 1,
      max: 10_000_000,
      integer: true,
    }),
    evictionMs: seconds(flags.interactionsEviction, '-interactions-eviction', OAST_DEFAULTS.evictionSeconds),
    pollMs: seconds(flags.interactionsPollDuration, '-interactions-poll-duration', OAST_DEFAULTS.pollSeconds),
    cooldownMs: seconds(
      flags.interactionsCooldownPeriod,
      '-interactions-cooldown-period',
      OAST_DEFAULTS.cooldownSeconds,
    ),
  };
  const listening = [
    flags.oastListen,
    flags.oastDomain,
    flags.oastDnsListen,
    flags.oastHttpsListen,
    flags.oastSmtpListen,
    flags.oastTlsCert,
    flags.oastTlsKey,
  ].some((flag) => flag !== undefined);
  if (flags.interactsh === false) {
    const given = [
      flags.interactshServer !== undefined ? '-iserver' : undefined,
      listening ? '--oast-listen' : undefined,
    ].filter((f) => f !== undefined);
    if (given.length > 0)
      throw new UserError(`-ni turns out-of-band testing off: leave out ${given.join(', ')} or -ni`);
    return undefined;
  }
  if (listening) return listenPlan(flags, timing, cwd);
  const servers = (flags.interactshServer ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    kind: 'servers',
    servers: servers.length > 0 ? servers : PUBLIC_OAST_SERVERS,
    publicDefault: servers.length === 0,
    ...(flags.interactshToken ? { token: flags.interactshToken } : {}),
    timing,
  };
}

function listenPlan(
  flags: GivenFlags,
  timing: Extract<OastPlan, { kind: 'listen' }>['timing'],
  cwd: string,
): OastPlan {
  if (flags.oastListen === undefined || flags.oastDomain === undefined) {
    throw new UserError('--oast-listen HOST:PORT and --oast-domain NAME go together: give both');
  }
  if (flags.interactshServer !== undefined) {
    throw new UserError(
      '--oast-listen runs keyhole’s own listener; -iserver names another server: give one of them',
    );
  }
  const http = address(flags.oastListen, '--oast-listen');
  const dns =
    flags.oastDnsListen === undefined ? undefined : address(flags.oastDnsListen, '--oast-dns-listen');
  const https = httpsPlan(flags, cwd);
  const smtp =
    flags.oastSmtpListen === undefined ? undefined : address(flags.oastSmtpListen, '--oast-smtp-listen');
  const answerAddress = [http.host, dns?.host].find(
    (host) => host !== undefined && isIPv4(host) && host !== '0.0.0.0',
  );
  if (dns !== undefined && answerAddress === undefined) {
    throw new UserError(
      '--oast-dns-listen answers names under --oast-domain with the listener’s address: give --oast-listen or --oast-dns-listen a concrete IPv4 address',
    );
  }
  return {
    kind: 'listen',
    domain: flags.oastDomain,
    http,
    ...(dns ? { dns } : {}),
    ...(https ? { https } : {}),
    ...(smtp ? { smtp } : {}),
    ...(answerAddress ? { answerAddress } : {}),
    timing,
  };
}

function httpsPlan(flags: GivenFlags, cwd: string): Extract<OastPlan, { kind: 'listen' }>['https'] {
  const certificate = readCertificateFiles(flags.oastTlsCert, flags.oastTlsKey, cwd, {
    cert: '--oast-tls-cert',
    key: '--oast-tls-key',
  });
  if (flags.oastHttpsListen === undefined) {
    if (certificate !== undefined) {
      throw new UserError(
        '--oast-tls-cert and --oast-tls-key are for the HTTPS listener: give --oast-https-listen HOST:PORT too',
      );
    }
    return undefined;
  }
  const at = address(flags.oastHttpsListen, '--oast-https-listen');
  return { at, ...(certificate ? { certificate } : {}) };
}

function address(text: string, flag: string): { host: string; port: number } {
  try {
    return listenAddress(text);
  } catch (error) {
    if (error instanceof InvalidArgumentError)
      throw new UserError(`${flag}: ${error.message}, got ${JSON.stringify(text)}`);
    throw error;
  }
}

function seconds(text: string | undefined, flag: string, fallback: number): number {
  return numberFlag(text, flag, fallback, { min: 0, max: 86_400 }) * 1000;
}
