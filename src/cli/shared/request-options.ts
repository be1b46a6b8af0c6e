/**
 * The flags of the commands that send template requests (`scan`, `retest`, `worker`), defined once
 * and added to each: secrets and request settings, and the output and redaction flags each command
 * describes in its own words.
 */
import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import {
  collect,
  collectList,
  type dbOption,
  type FlagsOf,
  type OptionFlags,
  type teamOption,
} from './options.js';

/** nuclei's defaults for the request settings, as the help shows them. */
export const REQUEST_DEFAULTS = {
  concurrency: 25,
  bulkSize: 25,
  rateLimit: 150,
  timeoutSeconds: 10,
  retries: 1,
  maxHostErrors: 30,
  maxRedirects: 10,
} as const;

/** How a command words the request flags whose meaning depends on what it runs. */
export interface RequestWording {
  /** When `-ps` logs in, and which entries: "before …, for every dynamic secret that …". */
  readonly prefetch: string;
  /** What the `-rl` budget is shared by: "the whole scan". */
  readonly rateLimitScope: string;
}

/**
 * `-sf`, `-ps`, `-H`, `-var`, `-c`, `-bs`, `-rl`, `-timeout`, `-retries`, `-mhe`, `-nmhe`, `-proxy`, the debug
 * flags, then nuclei's flags that change what the templates send (`-fr`, `-fhr`, `-mr`, `-dr`, `-sni`,
 * `-at`, `-rsr`, `-spm`), in that order.
 */
export function addRequestOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  Global extends OptionValues,
>(command: Command<Args, Opts, Global>, wording: RequestWording) {
  return command
    .option('--sf, --secret-file <files>', 'secret file; repeat or give a comma list (also -sf)', collectList)
    .option('--ps, --prefetch-secrets', `log in, ${wording.prefetch} (also -ps)`)
    .option('-H, --header <header>', 'header "Name: value" added to every request (repeatable)', collect)
    .option('--var <name=value>', 'template variable (repeatable; also -var)', collect)
    .option(
      '-c, --concurrency <n>',
      `template runs at once, all templates together (default ${REQUEST_DEFAULTS.concurrency})`,
    )
    .option(
      '--bs, --bulk-size <n>',
      `targets one template runs on at once, within -c (default ${REQUEST_DEFAULTS.bulkSize}; also -bs)`,
    )
    .option(
      '--rl, --rate-limit <n>',
      `requests per second for ${wording.rateLimitScope}; 0: no limit (default ${REQUEST_DEFAULTS.rateLimit})`,
    )
    .option('--timeout <seconds>', `time limit of one request (default ${REQUEST_DEFAULTS.timeoutSeconds})`)
    .option(
      '--retries <n>',
      `times a request that failed in transport is sent again (default ${REQUEST_DEFAULTS.retries})`,
    )
    .option(
      '--mhe, --max-host-error <n>',
      `failures in a row (no connection, no answer in time) after which a host is skipped for the rest of the run (default ${REQUEST_DEFAULTS.maxHostErrors}; also -mhe)`,
    )
    .option('--nmhe, --no-mhe', 'never skip a host, however often it fails (also -nmhe)')
    .option(
      '-p, --proxy <proxies>',
      'http, https or socks5 proxy for every request, logins included: URLs or files of them, a comma list or repeated; the first that answers is used (also -proxy)',
      collectList,
    )
    .option('-v, --verbose', 'a line for every request sent')
    .option(
      '--debug',
      'show every request as sent and every response as received, secrets masked (also -debug)',
    )
    .option('--dreq, --debug-req', 'show every request as sent, secrets masked (also -dreq, -debug-req)')
    .option(
      '--dresp, --debug-resp',
      'show every response as received, secrets masked (also -dresp, -debug-resp)',
    )
    .option('--nc, --no-color', 'no colours in what is printed (also -nc; NO_COLOR does the same)')
    .option('--fr, --follow-redirects', 'follow redirects in every template (also -fr)')
    .option(
      '--fhr, --follow-host-redirects',
      'follow redirects on the same host in every template (also -fhr)',
    )
    .option(
      '--mr, --max-redirects <n>',
      `with -fr or -fhr: redirects followed at most (default: the template's, else ${REQUEST_DEFAULTS.maxRedirects})`,
    )
    .option('--dr, --disable-redirects', 'follow no redirect, whatever the templates say (also -dr)')
    .option('--sni <name>', 'TLS server name of every request (default: its host name)')
    .option(
      '--at, --attack-type <type>',
      'payload combinations of every template: batteringram, pitchfork or clusterbomb',
    )
    .option(
      '--rsr, --response-size-read <bytes>',
      "most body bytes read per response, over templates' max-size",
    )
    .option('--spm, --stop-at-first-match', 'every request block stops at its first match (also -spm)');
}

/** `-j`: what a command prints as JSON lines. */
export function jsonlOption(description: string) {
  return new Option('-j, --jsonl', description);
}

/** `--silent`: what a command still prints. */
export function silentOption(description: string) {
  return new Option('--silent', description);
}

/** `--no-redact`: where a command shows or keeps secret values. */
export function noRedactOption(description: string) {
  return new Option('--no-redact', description);
}

/** The request flags as commander hands them over (repeatable ones collected, numbers still text). */
export type RequestFlags = FlagsOf<typeof addRequestOptions<[], Record<never, never>, Record<never, never>>>;

/**
 * What a command that sends template requests was given: its request flags, and its output, redaction
 * and store flags (each one absent where the command has no such flag or it was left out).
 */
export type RunFlags = Partial<
  RequestFlags &
    OptionFlags<ReturnType<typeof jsonlOption>> &
    OptionFlags<ReturnType<typeof silentOption>> &
    OptionFlags<ReturnType<typeof noRedactOption>> &
    OptionFlags<ReturnType<typeof teamOption>> &
    OptionFlags<ReturnType<typeof dbOption>>
>;
