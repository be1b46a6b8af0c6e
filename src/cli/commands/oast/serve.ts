import { OastServerError, startOastServer } from '../../../oast/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { readCertificateFiles } from './certificate-files.js';
import type { OastServeFlags } from './command.js';

function log(io: CliIo, msg: string, fields: Record<string, unknown>): void {
  io.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg, ...fields })}\n`);
}

/** `keyhole oast serve`: serves until SIGINT or SIGTERM; the exit code. */
export async function serveOast(options: OastServeFlags, io: CliIo): Promise<number> {
  const answerAddress = options.ip ?? (options.listen.host === '0.0.0.0' ? undefined : options.listen.host);
  const dns =
    options.dns === false ? undefined : (options.dnsListen ?? { host: options.listen.host, port: 53 });
  if (dns !== undefined && answerAddress === undefined) {
    throw new UserError(
      'DNS answers need the address targets reach this server on: give it with --ip (or --no-dns)',
    );
  }
  const certificate = readCertificateFiles(options.tlsCert, options.tlsKey, io.cwd, {
    cert: '--tls-cert',
    key: '--tls-key',
  });
  if (certificate !== undefined && options.httpsListen === undefined) {
    throw new UserError(
      '--tls-cert and --tls-key are for the HTTPS listener: give --https-listen HOST:PORT too',
    );
  }
  const https = options.httpsListen
    ? { at: options.httpsListen, ...(certificate ? { certificate } : {}) }
    : undefined;
  let server: Awaited<ReturnType<typeof startOastServer>>;
  try {
    server = await startOastServer({
      domain: options.domain,
      http: options.listen,
      ...(dns ? { dns } : {}),
      ...(https ? { https } : {}),
      ...(options.smtpListen ? { smtp: options.smtpListen } : {}),
      ...(answerAddress ? { answerAddress } : {}),
      ...(options.token ? { token: options.token } : {}),
      onInteraction: (interaction) =>
        log(io, 'interaction', {
          protocol: interaction.protocol,
          'unique-id': interaction['unique-id'],
          'remote-address': interaction['remote-address'],
        }),
    });
  } catch (error) {
    if (error instanceof OastServerError) throw new UserError(error.message);
    throw error;
  }
  log(io, 'listening', {
    url: server.url,
    domain: server.domain,
    ...(server.https ? { https: `${server.https.host}:${server.https.port}` } : {}),
    ...(server.smtp ? { smtp: `${server.smtp.host}:${server.smtp.port}` } : {}),
    ...(server.dns ? { dns: `${server.dns.host}:${server.dns.port}` } : {}),
    token: options.token ? 'required' : 'none',
  });
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log(io, 'shutting down', { signal });
  await server.close();
  return ExitCode.ok;
}
