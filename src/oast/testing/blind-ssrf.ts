import { Resolver } from 'node:dns/promises';
import { createServer, request, type Server } from 'node:http';
import { request as requestTls } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface BlindSsrfApp {
  readonly origin: string;
  close(): Promise<void>;
}

/** Where the network of the application routes ports 80 and 443: to the listener's HTTP and HTTPS ports. */
export interface Routes {
  readonly http: number;
  readonly https?: number;
}

/**
 * A vulnerable application for out-of-band tests, on 127.0.0.1: it answers at once and, in the
 * background, follows what it was given. `/fetch?url=` resolves the URL's host with `resolverAt` (the
 * listener's DNS) and fetches it from `routePort` (its network routes port 80 to the listener, and
 * port 443 to `routePort.https`, whose certificate it does not verify);
 * with `forward=1`, it passes its caller's `X-Api-Key` on (a proxy that forwards credentials);
 * `/lookup?host=` only resolves the name; `/safe?url=` ignores the URL.
 */
export async function blindSsrfApp(
  resolverAt: { host: string; port: number },
  routePort: number | Routes,
): Promise<BlindSsrfApp> {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`${resolverAt.host}:${resolverAt.port}`]);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('queued');
    const forwarded = url.searchParams.get('forward') === '1' ? req.headers['x-api-key'] : undefined;
    if (url.pathname === '/fetch') {
      void follow(
        resolver,
        url.searchParams.get('url') ?? '',
        routePort,
        typeof forwarded === 'string' ? forwarded : undefined,
      );
    }
    if (url.pathname === '/lookup')
      void resolver.resolve4(url.searchParams.get('host') ?? '').catch(() => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Fetches `target` as a host of a network whose resolver is the listener's DNS and whose port 80
 * (and 443) leads to the listener (`routePort`); resolves once the answer came (true), or the fetch
 * failed (false).
 */
export function fetchThroughListener(
  target: string,
  resolverAt: { host: string; port: number },
  routePort: number | Routes,
): Promise<boolean> {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`${resolverAt.host}:${resolverAt.port}`]);
  return follow(resolver, target, routePort, undefined);
}

async function follow(
  resolver: Resolver,
  target: string,
  routePort: number | Routes,
  apiKey: string | undefined,
): Promise<boolean> {
  try {
    const url = new URL(target);
    const routes = typeof routePort === 'number' ? { http: routePort } : routePort;
    const secure = url.protocol === 'https:';
    const port = secure ? routes.https : routes.http;
    const [address] = await resolver.resolve4(url.hostname);
    if (address === undefined || port === undefined) return false;
    return await new Promise<boolean>((resolve) => {
      const req = (secure ? requestTls : request)(
        {
          host: address,
          port,
          ...(secure ? { servername: url.hostname, rejectUnauthorized: false } : {}),
          path: `${url.pathname}${url.search}`,
          headers: { host: url.host, 'user-agent': 'app/1.0', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(true));
        },
      );
      req.on('error', () => resolve(false));
      req.end();
    });
  } catch {
    // A blind fetch: the application never says whether it worked.
    return false;
  }
}
