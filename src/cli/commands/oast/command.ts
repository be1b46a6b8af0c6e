import { type Command, InvalidArgumentError } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import type { FlagsOf } from '../../shared/options.js';

/** `HOST:PORT` (`[::1]:53` for IPv6) as given to a listen flag. */
export function listenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new InvalidArgumentError(
      'expected HOST:PORT, such as 0.0.0.0:80 or 127.0.0.1:8053 (port 0: any free port)',
    );
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

const HELP = `
Targets call back on names under --domain: delegate the domain's NS records to this machine (or
point the targets' resolver at --dns-listen) and keep HTTP on port 80 so that templates'
http://{{interactsh-url}} reaches it; --https-listen on port 443 does the same for
https://{{interactsh-url}}, with --tls-cert/--tls-key or else a self-signed certificate for the
domain and *.domain made at start (targets that verify certificates then refuse it); --smtp-listen
on port 25 takes mail to anyone at a callback name. Scans use it with -iserver http://HOST:PORT (and
-itoken when --token is set). Interactions are kept in memory until their client polls them; each
is logged as a JSON line on stdout without its request or response. SIGINT or SIGTERM stops it.

Examples:
  keyhole oast serve --domain oast.example.com --ip 203.0.113.7
  keyhole oast serve --domain oast.internal --listen 10.0.0.5:80 --dns-listen 10.0.0.5:53 --token "$OAST_TOKEN"
  keyhole oast serve --domain oast.internal --listen 10.0.0.5:80 --https-listen 10.0.0.5:443 --tls-cert oast.crt --tls-key oast.key
  keyhole scan -u https://app.internal -t blind-ssrf.yaml -iserver http://10.0.0.5 -itoken "$OAST_TOKEN"
`;

function defineOastServe(program: Command) {
  return program
    .command('oast')
    .description('out-of-band testing: keyhole’s own interactsh server')
    .command('serve')
    .description('serve the interactsh protocol: HTTP, HTTPS, DNS and SMTP callbacks, and the API scans poll')
    .requiredOption('--domain <name>', 'domain whose subdomains targets call back on')
    .option('--listen <host:port>', 'HTTP listener for callbacks and the API', listenAddress, {
      host: '0.0.0.0',
      port: 80,
    })
    .option(
      '--dns-listen <host:port>',
      'DNS listener (UDP and TCP); default: the HTTP host, port 53',
      listenAddress,
    )
    .option('--no-dns', 'no DNS listener')
    .option(
      '--https-listen <host:port>',
      'also serve HTTPS callbacks and the API here (default: no HTTPS)',
      listenAddress,
    )
    .option('--smtp-listen <host:port>', 'also take mail callbacks here (default: no SMTP)', listenAddress)
    .option(
      '--tls-cert <file>',
      'PEM certificate for --https-listen (default: self-signed for the domain and *.domain)',
    )
    .option('--tls-key <file>', 'PEM private key of --tls-cert, unencrypted')
    .option('--ip <address>', 'IPv4 address names under the domain resolve to (default: the --listen host)')
    .option('--token <text>', 'token clients must give (-itoken); default: none')
    .addHelpText('after', HELP);
}

/** The flags of `keyhole oast serve`, as its definition types them. */
export type OastServeFlags = FlagsOf<typeof defineOastServe>;

/** `keyhole oast serve`: the interactsh server, until SIGINT or SIGTERM. */
export const registerOast: CommandRegistrar = (program, runs) => {
  runs(defineOastServe(program), async () => (await import('./serve.js')).serveOast);
};
