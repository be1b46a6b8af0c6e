import { type Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, type FlagsOf } from '../../shared/options.js';

/** The API's default rate limit, as `--help` shows it; the API's `DEFAULT_RATE_LIMIT` (a test keeps them equal). */
export const DEFAULT_RATE_LIMIT_OPTION = 600;

function integer(min: number, max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return Number(text);
  };
}

const HELP = `
Logs are JSON lines on stdout, without credentials: request headers are never logged, and of a
query string only the API's own parameters keep their values. SIGINT or SIGTERM stops the
server after the requests in flight. GET /healthz needs no key; GET /openapi.json describes the API.
The store must exist: keyhole db migrate creates an empty one.
Retests asked for through the API (POST /v1/scans/{vuln_id}/retest, the dashboard's Retest
button) are run by this process on SQLite, with the --secrets file the finding's scan used; on
PostgreSQL keyhole worker runs them (with its -sf files). A finding found with a secret waits for
a runner that has secret files.
Scans started through the API (POST /v1/scans, the dashboard's Rescan button) choose their
templates in --templates-dir as keyhole scan -t/-tags/-id do, and may name one of the --secrets
files (secret_file); this process runs them on SQLite, with that file's secrets only (none
without secret_file), keyhole worker on PostgreSQL.

Examples:
  keyhole serve
  keyhole serve --host 0.0.0.0 --port 9000 --db postgres://keyhole@db.internal/keyhole
  keyhole serve --host 0.0.0.0 --processes 4 --db postgres://keyhole@db.internal/keyhole
  keyhole serve --host 0.0.0.0 --port 8443 --tls-cert server.crt --tls-key server.key
  keyhole serve --secrets staging.secrets.yaml
  keyhole serve --templates-dir ~/nuclei-templates --secrets staging.secrets.yaml
  curl -H "X-API-Key: $API_KEY" 'http://127.0.0.1:8080/v1/scans?status=running,finished&limit=20'
`;

function defineServe(program: Command) {
  return program
    .command('serve')
    .description(
      'serve the /v1 API (scans, findings, assets, retest, uploads, triage, key check) and the web dashboard at / over the store',
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <number>', 'port to listen on (0: any free port)', integer(0, 65535), 8080)
    .option(
      '--rate-limit <n>',
      'requests per minute allowed to each API key (0: no limit)',
      integer(0, 1_000_000),
      DEFAULT_RATE_LIMIT_OPTION,
    )
    .option(
      '--processes <n>',
      'serving processes sharing the port (PostgreSQL only; each opens its own connections); dashboard sessions and rate limits hold across them',
      integer(1, 64),
      1,
    )
    .option(
      '--no-cache',
      'render every page from the store (by default a page is served again while the store is unchanged)',
    )
    .option(
      '--tls-cert <file>',
      'serve HTTPS with this PEM certificate (then any intermediates); needs --tls-key',
    )
    .option('--tls-key <file>', 'the PEM private key of --tls-cert (unencrypted)')
    .option(
      '--secrets <file...>',
      'secret files for the retests and scans asked for through the API (SQLite: this process runs them; a scan names one with secret_file); secrets are never sent over the API',
    )
    .option(
      '--templates-dir <dir>',
      'the templates folder of the scans started through the API (default: $KEYHOLE_TEMPLATES, else ~/nuclei-templates)',
    )
    .addOption(
      new Option('--log-level <level>', 'JSON log level')
        .choices(['debug', 'info', 'warn', 'error', 'silent'])
        .default('info'),
    )
    .addOption(dbOption())
    .addHelpText('after', HELP);
}

/** The flags of `keyhole serve`, as its definition types them. */
export type ServeFlags = FlagsOf<typeof defineServe>;

/** `keyhole serve`: the `/v1` API and the dashboard, until SIGINT or SIGTERM. */
export const registerServe: CommandRegistrar = (program, runs) => {
  runs(defineServe(program), async () => (await import('./serve.js')).serve);
};
