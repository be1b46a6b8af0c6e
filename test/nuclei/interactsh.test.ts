/**
 * nuclei's interactsh integration cases for HTTP (the handlers in internal/tests/integration/
 * http_test.go, listed in interactsh_test.go), run against keyhole with its own listener in the scan:
 * the case's server is on a network whose resolver is the listener's DNS, as a network with the
 * callback domain delegated to the listener is. README.md says how each case is translated.
 */
import { createServer as createNetServer } from 'node:net';
import { describe, expect } from 'vitest';
import { type FixtureRequest, fixtureServer, type Route } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { fetchThroughListener } from '../../src/oast/testing/blind-ssrf.js';
import { events, expectResultsCount, nucleiCase, runTemplate } from './keyhole.js';

const { defer } = closedAfterEach();

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** keyhole's listener for one scan: its HTTP, HTTPS and DNS ports, and how the case's server reaches it. */
async function listenerPorts() {
  const http = await freePort();
  const https = await freePort();
  const dns = await freePort();
  return {
    flags: [
      '--oast-listen',
      `127.0.0.1:${http}`,
      '--oast-domain',
      'oast.test',
      '--oast-dns-listen',
      `127.0.0.1:${dns}`,
      '--oast-https-listen',
      `127.0.0.1:${https}`,
      '-interactions-poll-duration',
      '1',
    ],
    /**
     * What Go's http client does with the URL, from a host of the listener's network (ports 80 and
     * 443 lead to the listener; the self-signed certificate is not verified, as nuclei's handlers
     * do not): true when the answer came.
     */
    fetch: (url: string) => fetchThroughListener(url, { host: '127.0.0.1', port: dns }, { http, https }),
  };
}

async function server(routes: readonly Route[]) {
  const ts = await fixtureServer(routes);
  defer(() => ts.close());
  return ts;
}

/** The Go handler shared by most cases: fetch the URL of the `url` header, answer 200 with no body. */
function fetchesUrlHeader(fetch: (url: string) => Promise<unknown>): Route {
  return {
    method: 'GET',
    path: '/',
    respond: async (request: FixtureRequest) => {
      const value = request.headers.url;
      if (value !== undefined && value !== '') await fetch(value);
      return { body: '' };
    },
  };
}

describe("nuclei's interactsh integration cases", () => {
  nucleiCase(
    'httpInteractshRequest: the server fetches the URL of its url header; the DNS interaction matches',
    undefined,
    async () => {
      const listener = await listenerPorts();
      const ts = await server([fetchesUrlHeader(listener.fetch)]);
      // nuclei: the public interactsh servers; here keyhole's listener, in the scan.
      const run = await runTemplate('protocols/http/interactsh.yaml', ts.url, ...listener.flags);
      expectResultsCount(run, 1, 2);
    },
    60_000,
  );

  nucleiCase(
    'httpInteractshWithPayloadsRequest: each payload value sends its own URL, and each is fetched',
    undefined,
    async () => {
      const listener = await listenerPorts();
      const ts = await server([fetchesUrlHeader(listener.fetch)]);
      const run = await runTemplate(
        'protocols/http/interactsh-with-payloads.yaml',
        ts.url,
        ...listener.flags,
      );
      expectResultsCount(run, 1, 3);
      const names = events(run).map((e) => (e.interaction as { 'unique-id': string })['unique-id']);
      expect(new Set(names).size).toBe(names.length);
    },
    60_000,
  );

  nucleiCase(
    'httpInteractshStopAtFirstMatchRequest: nine requests call back, one result',
    undefined,
    async () => {
      const listener = await listenerPorts();
      const ts = await server([fetchesUrlHeader(listener.fetch)]);
      const run = await runTemplate(
        'protocols/http/interactsh-stop-at-first-match.yaml',
        ts.url,
        ...listener.flags,
      );
      expectResultsCount(run, 1);
    },
    60_000,
  );

  nucleiCase(
    'httpDefaultMatcherCondition: matchers are or-ed, the status alone matches at /status, the DNS interaction alone at /interactsh',
    undefined,
    async () => {
      const listener = await listenerPorts();
      let fetched = 0;
      const ts = await server([
        {
          method: 'GET',
          path: '/interactsh/',
          respond: async (request) => {
            const value = request.query.get('url');
            if (value !== null && value !== '') {
              // Go: Get("https://" + value), failing the case when the fetch fails.
              if (await listener.fetch(`https://${value}`)) fetched++;
            }
            return { status: 404 };
          },
        },
        { method: 'GET', path: '/status/', respond: { status: 200 } },
      ]);
      const status = await runTemplate(
        'protocols/http/default-matcher-condition.yaml',
        `${ts.url}/status`,
        ...listener.flags,
      );
      expectResultsCount(status, 1);
      const interactsh = await runTemplate(
        'protocols/http/default-matcher-condition.yaml',
        `${ts.url}/interactsh`,
        ...listener.flags,
      );
      expect(fetched).toBe(1);
      expectResultsCount(interactsh, 1);
      expect(events(interactsh)[0]?.interaction).toMatchObject({ protocol: 'dns' });
    },
    60_000,
  );

  nucleiCase(
    'httpInteractshRequestsWithMCAnd: the first request calls back, the second answers 200; both matchers hold',
    undefined,
    async () => {
      const listener = await listenerPorts();
      // nuclei scans honey.scanme.sh, whose /api/geoping/HOST pings HOST; here a server that does.
      const ts = await server([
        {
          method: 'GET',
          path: /^\/api\/geoping\/[^/]+$/,
          respond: async (request) => {
            await listener.fetch(`http://${request.path.slice('/api/geoping/'.length)}/`);
            return { body: 'pinged' };
          },
        },
        { method: 'GET', path: '/', respond: { body: 'honeypot' } },
      ]);
      const run = await runTemplate(
        'protocols/http/interactsh-requests-mc-and.yaml',
        ts.url,
        ...listener.flags,
      );
      expectResultsCount(run, 1);
    },
    60_000,
  );
});
