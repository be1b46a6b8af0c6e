/**
 * Fixture servers for engine tests: a real node:http server on 127.0.0.1 (ephemeral port) answering
 * from a table of routes, recording every request as it arrived (request-target exactly as sent).
 * A product is imitated by a small route table; unknown routes answer 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface FixtureRequest {
  readonly method: string;
  /** The request-target as sent (`/a/..;/b?x=1`). */
  readonly target: string;
  /** The target without its query. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Header names lower-cased; repeated headers joined with `, ` (cookies with `; `). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Cookies of the Cookie header. */
  readonly cookies: Readonly<Record<string, string>>;
  /** Where the request came in: `127.0.0.1` or `localhost` (from the Host header). */
  readonly host: string;
}

export interface FixtureResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string | Buffer;
  /** Wait this long before answering (for timeout tests). */
  readonly delayMs?: number;
}

export interface Route {
  readonly method?: string;
  /** Exact path (without query), or a pattern tested against the path. */
  readonly path: string | RegExp;
  /** Further conditions on the request (credentials, a header, a cookie). */
  readonly when?: (request: FixtureRequest) => boolean;
  readonly respond:
    | FixtureResponse
    | ((request: FixtureRequest) => FixtureResponse | Promise<FixtureResponse>);
}

export interface FixtureServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The same server named `localhost` (another host for cookies and secrets). */
  readonly localhostUrl: string;
  readonly requests: FixtureRequest[];
  close(): Promise<void>;
}

const NOT_FOUND: FixtureResponse = {
  status: 404,
  headers: { 'Content-Type': 'text/plain' },
  body: 'not found',
};

export async function fixtureServer(routes: readonly Route[]): Promise<FixtureServer> {
  const requests: FixtureRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = fixtureRequest(incoming, Buffer.concat(chunks).toString('utf8'));
      requests.push(request);
      const route = routes.find((r) => matches(r, request));
      const response =
        route === undefined
          ? NOT_FOUND
          : typeof route.respond === 'function'
            ? route.respond(request)
            : route.respond;
      void Promise.resolve(response).then((r) => answer(outgoing, r));
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fixture server has no port');
  const port = address.port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    localhostUrl: `http://localhost:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function fixtureRequest(incoming: IncomingMessage, body: string): FixtureRequest {
  const target = incoming.url ?? '/';
  const question = target.indexOf('?');
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    const name = (incoming.rawHeaders[i] ?? '').toLowerCase();
    const value = incoming.rawHeaders[i + 1] ?? '';
    const separator = name === 'cookie' ? '; ' : ', ';
    headers[name] = headers[name] === undefined ? value : `${headers[name]}${separator}${value}`;
  }
  const cookies: Record<string, string> = {};
  for (const pair of (headers.cookie ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0) cookies[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return {
    method: incoming.method ?? 'GET',
    target,
    path: question < 0 ? target : target.slice(0, question),
    query: new URLSearchParams(question < 0 ? '' : target.slice(question + 1)),
    headers,
    body,
    cookies,
    host: (headers.host ?? '').replace(/:\d+$/, ''),
  };
}

function matches(route: Route, request: FixtureRequest): boolean {
  if (route.method !== undefined && route.method !== request.method) return false;
  const pathOk = typeof route.path === 'string' ? route.path === request.path : route.path.test(request.path);
  return pathOk && (route.when === undefined || route.when(request));
}

function answer(outgoing: ServerResponse, response: FixtureResponse): void {
  const send = () => {
    if (outgoing.destroyed) return;
    const body = response.body ?? '';
    outgoing.statusCode = response.status ?? 200;
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      outgoing.setHeader(name, typeof value === 'string' ? value : [...value]);
    }
    if (!outgoing.hasHeader('content-type')) outgoing.setHeader('Content-Type', 'text/html; charset=utf-8');
    outgoing.end(body);
  };
  if (response.delayMs === undefined) send();
  else setTimeout(send, response.delayMs);
}
