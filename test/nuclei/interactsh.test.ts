/**
 * nuclei's interactsh integration cases for HTTP (the handlers in internal/tests/integration/
 * http_test.go, listed in interactsh_test.go), run against keyhole with its own listener in the scan:
 * the case's server is on a network whose resolver is the listener's DNS, as a network with the
 * callback domain delegated to the listener is. README.md lists the cases not run.
 */
import { createServer as createNetServer } from 'node:net';
import { describe } from 'vitest';
import { fixtureServer } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { fetchThroughListener } from '../../src/oast/testing/blind-ssrf.js';
import { expectResultsCount, nucleiCase, runTemplate } from './keyhole.js';

const { defer } = closedAfterEach();

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("nuclei's interactsh integration cases", () => {
  nucleiCase(
    'httpInteractshRequest: the server fetches the URL of its url header; the DNS interaction matches',
    undefined,
    async () => {
      const http = await freePort();
      const dns = await freePort();
      const ts = await fixtureServer([
        {
          method: 'GET',
          path: '/',
          respond: async (request) => {
            const value = request.headers.url;
            if (typeof value === 'string' && value !== '') {
              await fetchThroughListener(value, { host: '127.0.0.1', port: dns }, http);
            }
            return { body: '' };
          },
        },
      ]);
      defer(() => ts.close());
      // nuclei: the public interactsh servers; here keyhole's listener, in the scan.
      const run = await runTemplate(
        'protocols/http/interactsh.yaml',
        ts.url,
        '--oast-listen',
        `127.0.0.1:${http}`,
        '--oast-domain',
        'oast.test',
        '--oast-dns-listen',
        `127.0.0.1:${dns}`,
        '-interactions-poll-duration',
        '1',
      );
      expectResultsCount(run, 1);
    },
    60_000,
  );
});
