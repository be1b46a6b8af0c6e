/**
 * The out-of-band side of a session: a registration with an interactsh server (public, self-hosted,
 * or keyhole's own listener run in this process) and the watcher that polls it for the scan.
 */
import {
  InteractionWatcher,
  type ListenAddress,
  OastClient,
  OastClientError,
  type OastServer,
  OastServerError,
  startOastServer,
  type TlsCertificate,
} from '../oast/index.js';

/** `-interactions-*`, in milliseconds and names. */
export interface OastTiming {
  readonly cacheSize: number;
  readonly evictionMs: number;
  readonly pollMs: number;
  readonly cooldownMs: number;
}

export type OastPlan =
  | {
      readonly kind: 'servers';
      /** Tried in order; the first that registers is used. */
      readonly servers: readonly string[];
      /** The servers are nuclei's public list (no `-iserver` given). */
      readonly publicDefault: boolean;
      readonly token?: string;
      readonly timing: OastTiming;
    }
  | {
      readonly kind: 'listen';
      readonly domain: string;
      readonly http: ListenAddress;
      readonly dns?: ListenAddress;
      /** HTTPS callbacks here; a self-signed certificate for the domain unless one is given. */
      readonly https?: { readonly at: ListenAddress; readonly certificate?: TlsCertificate };
      /** SMTP callbacks here. */
      readonly smtp?: ListenAddress;
      readonly answerAddress?: string;
      readonly timing: OastTiming;
    };

/** nuclei's public interactsh servers, its default without `-iserver`. */
export const PUBLIC_OAST_SERVERS = [
  'oast.pro',
  'oast.live',
  'oast.site',
  'oast.online',
  'oast.fun',
  'oast.me',
];

/** No interactsh server could be used: the scan does not start. */
export class OastUnavailable extends Error {
  override readonly name = 'OastUnavailable';
}

export interface OpenOast {
  readonly watcher: InteractionWatcher;
  /** Where callbacks go, for the user: `oast.fun`, or the listener's address and domain. */
  readonly description: string;
  close(): Promise<void>;
}

export async function openOast(plan: OastPlan, onPollError: (error: unknown) => void): Promise<OpenOast> {
  const watcherOptions = { ...plan.timing, onPollError };
  if (plan.kind === 'listen') return openListener(plan, watcherOptions);
  const failures: string[] = [];
  for (const server of plan.servers) {
    try {
      const client = await OastClient.register({
        server,
        ...(plan.token ? { token: plan.token } : {}),
        timeoutMs: 5000,
      });
      const watcher = new InteractionWatcher(client, watcherOptions);
      return { watcher, description: `the interactsh server ${client.server}`, close: () => watcher.close() };
    } catch (error) {
      if (!(error instanceof OastClientError)) throw error;
      failures.push(error.message);
    }
  }
  const what = plan.publicDefault
    ? `none of the public interactsh servers (${plan.servers.join(', ')}) could be used`
    : 'the interactsh server could not be used';
  throw new OastUnavailable(
    `templates here test out of band, and ${what}: ${failures.join('; ')}. Give a server this machine and the targets reach with -iserver, run keyhole's own listener with --oast-listen HOST:PORT --oast-domain NAME, or leave those requests out with -ni`,
  );
}

async function openListener(
  plan: Extract<OastPlan, { kind: 'listen' }>,
  watcherOptions: ConstructorParameters<typeof InteractionWatcher>[1],
): Promise<OpenOast> {
  let server: OastServer;
  try {
    server = await startOastServer({
      domain: plan.domain,
      http: plan.http,
      ...(plan.dns ? { dns: plan.dns } : {}),
      ...(plan.https ? { https: plan.https } : {}),
      ...(plan.smtp ? { smtp: plan.smtp } : {}),
      ...(plan.answerAddress ? { answerAddress: plan.answerAddress } : {}),
    });
  } catch (error) {
    if (error instanceof OastServerError) throw new OastUnavailable(`--oast-listen: ${error.message}`);
    throw error;
  }
  try {
    const apiHost =
      server.http.host === '0.0.0.0' || server.http.host === '::' ? '127.0.0.1' : server.http.host;
    const api = `http://${apiHost.includes(':') ? `[${apiHost}]` : apiHost}:${server.http.port}`;
    const client = await OastClient.register({ server: api, domain: server.domain });
    const watcher = new InteractionWatcher(client, watcherOptions);
    const dns = server.dns ? `, DNS on ${server.dns.host}:${server.dns.port}` : '';
    const https = server.https ? `, HTTPS on ${server.https.host}:${server.https.port}` : '';
    const smtp = server.smtp ? `, SMTP on ${server.smtp.host}:${server.smtp.port}` : '';
    return {
      watcher,
      description: `keyhole's listener on ${server.http.host}:${server.http.port} for *.${server.domain}${https}${smtp}${dns}`,
      close: async () => {
        await watcher.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error instanceof OastClientError ? new OastUnavailable(error.message) : error;
  }
}
