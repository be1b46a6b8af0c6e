import type { Command, OptionValues } from '@commander-js/extra-typings';

/** nuclei's defaults for `-interactions-*`; the oast folder's `OAST_DEFAULTS` (a test keeps them equal). */
export const OAST_DEFAULTS = {
  cacheSize: 5000,
  evictionSeconds: 60,
  pollSeconds: 5,
  cooldownSeconds: 5,
} as const;

const PUBLIC_OAST_LIST = 'oast.pro, oast.live, oast.site, oast.online, oast.fun, oast.me';

/** nuclei's interactsh flags and keyhole's own listener, as `scan` and `worker` take them. */
export function addOastOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  Global extends OptionValues,
>(command: Command<Args, Opts, Global>) {
  return command
    .option(
      '--iserver, --interactsh-server <url>',
      `interactsh server for out-of-band templates: a URL or host, or a comma list tried in order (default: nuclei's public ${PUBLIC_OAST_LIST}; also -iserver)`,
    )
    .option('--itoken, --interactsh-token <token>', 'token of a self-hosted interactsh server (also -itoken)')
    .option(
      '--interactions-cache-size <n>',
      `callback names whose interactions are kept (default ${OAST_DEFAULTS.cacheSize})`,
    )
    .option(
      '--interactions-eviction <seconds>',
      `how long such interactions are kept (default ${OAST_DEFAULTS.evictionSeconds})`,
    )
    .option(
      '--interactions-poll-duration <seconds>',
      `seconds between polls of the interactsh server (default ${OAST_DEFAULTS.pollSeconds})`,
    )
    .option(
      '--interactions-cooldown-period <seconds>',
      `seconds the requests of a block wait for their callbacks before the run goes on without them (default ${OAST_DEFAULTS.cooldownSeconds})`,
    )
    .option(
      '--ni, --no-interactsh',
      'no out-of-band testing: requests with {{interactsh-url}} are skipped (also -ni)',
    )
    .option(
      '--oast-listen <host:port>',
      "run keyhole's own interactsh listener in this process (HTTP on this address) instead of -iserver",
    )
    .option('--oast-domain <name>', 'domain whose subdomains the targets call back on (with --oast-listen)')
    .option(
      '--oast-dns-listen <host:port>',
      'also answer DNS for the domain here, UDP and TCP (with --oast-listen)',
    )
    .option(
      '--oast-https-listen <host:port>',
      'also take HTTPS callbacks here (with --oast-listen); self-signed for the domain and *.domain unless --oast-tls-cert',
    )
    .option('--oast-smtp-listen <host:port>', 'also take mail callbacks here (with --oast-listen)')
    .option('--oast-tls-cert <file>', 'PEM certificate for --oast-https-listen')
    .option('--oast-tls-key <file>', 'PEM private key of --oast-tls-cert, unencrypted');
}
