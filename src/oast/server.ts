import type { Socket } from 'node:dgram';
import type { Server as HttpServer } from 'node:http';
import { type AddressInfo, isIPv4, type Server as TcpServer } from 'node:net';
import { certificateProblem, selfSignedCertificate, type TlsCertificate } from './certificate.js';
import { type DnsListenerOptions, listenDnsTcp, listenDnsUdp } from './dns-listener.js';
import { createHttpListener, createHttpsListener } from './http-listener.js';
import type { Interaction } from './protocol.js';
import { Recorder } from './recorder.js';
import { Registry } from './registry.js';
import { createSmtpListener } from './smtp-listener.js';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export interface OastServerOptions {
  /** The name whose subdomains call back (`oast.example.com`). */
  readonly domain: string;
  readonly http: ListenAddress;
  /** DNS over UDP and TCP on this address; none when absent. */
  readonly dns?: ListenAddress;
  /** HTTPS on this address, with the given certificate or else a self-signed one for the domain; none when absent. */
  readonly https?: { readonly at: ListenAddress; readonly certificate?: TlsCertificate };
  /** SMTP on this address (mail to anyone at a callback name is an interaction); none when absent. */
  readonly smtp?: ListenAddress;
  /** The IPv4 address names under the domain resolve to; the HTTP host when that is one. */
  readonly answerAddress?: string;
  /** When set, the API requires it in the `Authorization` header. */
  readonly token?: string;
  /** Called for every interaction recorded (what `keyhole oast serve` logs). */
  readonly onInteraction?: (interaction: Interaction) => void;
}

export interface OastServer {
  /** The API's base URL (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly http: ListenAddress;
  readonly dns?: ListenAddress;
  readonly https?: ListenAddress;
  readonly smtp?: ListenAddress;
  readonly domain: string;
  close(): Promise<void>;
}

/** Why the server did not start, said for the user. */
export class OastServerError extends Error {}

/** Starts the callback listener and the interactsh API on the given addresses. */
export async function startOastServer(options: OastServerOptions): Promise<OastServer> {
  const domain = options.domain.trim().toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(domain)) {
    throw new OastServerError(`"${options.domain}" is not a domain name; give one such as oast.example.com`);
  }
  const certificate = options.https ? usableCertificate(options.https.certificate, domain) : undefined;
  const registry = new Registry();
  const recorder = new Recorder(registry, domain, options.onInteraction);
  const listenerOptions = { registry, recorder, domain, ...(options.token ? { token: options.token } : {}) };
  const httpServer = createHttpListener(listenerOptions);
  const http = await listenHttp(httpServer, options.http, 'HTTP');
  const closers: (() => Promise<void>)[] = [() => closeHttp(httpServer)];
  let dns: ListenAddress | undefined;
  let https: ListenAddress | undefined;
  let smtp: ListenAddress | undefined;
  try {
    if (options.smtp !== undefined) {
      const smtpServer = createSmtpListener(recorder, domain);
      smtp = await listenTcp(smtpServer, options.smtp, 'SMTP');
      closers.push(() => closeTcp(smtpServer));
    }
    if (options.https !== undefined && certificate !== undefined) {
      const httpsServer = createHttpsListener(listenerOptions, certificate);
      https = await listenHttp(httpsServer, options.https.at, 'HTTPS');
      closers.push(() => closeHttp(httpsServer));
    }
    if (options.dns !== undefined) {
      const answerAddress = options.answerAddress ?? options.http.host;
      if (!isIPv4(answerAddress)) {
        throw new OastServerError(
          `DNS answers need an IPv4 address for names under ${domain}; give it (the address targets reach this listener on)`,
        );
      }
      const dnsOptions = { recorder, answerAddress };
      const { udp, tcp } = await listenDns(dnsOptions, options.dns);
      closers.push(
        () => closeUdp(udp),
        () => closeTcp(tcp),
      );
      const port = udp.address().port;
      dns = { host: options.dns.host, port };
    }
  } catch (error) {
    await Promise.all(closers.map((close) => close()));
    throw error;
  }
  const hostInUrl = http.host.includes(':') ? `[${http.host}]` : http.host;
  return {
    url: `http://${hostInUrl}:${http.port}`,
    http,
    ...(dns ? { dns } : {}),
    ...(https ? { https } : {}),
    ...(smtp ? { smtp } : {}),
    domain,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}

/**
 * UDP and TCP on one port; with port 0, the port UDP was given may be taken for TCP, so another
 * pair is tried.
 */
async function listenDns(
  dnsOptions: DnsListenerOptions,
  at: ListenAddress,
): Promise<{ udp: Socket; tcp: TcpServer }> {
  for (let attempt = 1; ; attempt++) {
    const udp = await listenOrSay(() => listenDnsUdp(dnsOptions, at.host, at.port), at, 'DNS (UDP)');
    const port = udp.address().port;
    try {
      return {
        udp,
        tcp: await listenOrSay(() => listenDnsTcp(dnsOptions, at.host, port), { ...at, port }, 'DNS (TCP)'),
      };
    } catch (error) {
      await closeUdp(udp);
      if (at.port !== 0 || attempt >= 5) throw error;
    }
  }
}

async function listenOrSay<T>(listen: () => Promise<T>, at: ListenAddress, what: string): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    throw new OastServerError(`cannot listen for ${what} on ${at.host}:${at.port}: ${reason(error)}`);
  }
}

function usableCertificate(given: TlsCertificate | undefined, domain: string): TlsCertificate {
  if (given === undefined) return selfSignedCertificate(domain);
  const problem = certificateProblem(given, { cert: 'the certificate', key: 'the key' });
  if (problem !== undefined) throw new OastServerError(problem);
  return given;
}

function listenHttp(server: HttpServer, at: ListenAddress, what: string): Promise<ListenAddress> {
  return listenTcp(server, at, what);
}

function listenTcp(server: HttpServer | TcpServer, at: ListenAddress, what: string): Promise<ListenAddress> {
  return listenOrSay(
    () =>
      new Promise<ListenAddress>((resolve, reject) => {
        server.once('error', reject);
        server.listen(at.port, at.host, () => {
          server.off('error', reject);
          resolve({ host: at.host, port: (server.address() as AddressInfo).port });
        });
      }),
    at,
    what,
  );
}

function reason(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return 'the port is in use';
  if (code === 'EACCES') return 'permission denied (ports below 1024 need privileges)';
  if (code === 'EADDRNOTAVAIL') return 'no such address on this machine';
  return error instanceof Error ? error.message : String(error);
}

function closeHttp(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function closeTcp(server: TcpServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function closeUdp(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}
