#!/usr/bin/env node
/**
 * The keyhole demo app: five small protected web apps ("areas"), one per kind of secret that a
 * keyhole secret file can hold, each hiding a weakness that only a logged-in client can reach.
 *
 * keyhole applies at most one secret per host (host and port), so each area is its own host: its
 * own port on 127.0.0.1. The app is vulnerable on purpose and listens on the loopback interface only.
 * The default ports lie below the range operating systems hand out as ephemeral ports (32768 and
 * up on Linux, 49152 and up elsewhere), so a program's outgoing connection does not hold one.
 *
 *   node examples/demo-app/server.js                  # ports 27801-27805
 *   node examples/demo-app/server.js --base-port 28001
 *
 *   import { start } from './server.js';
 *   const app = await start({ ports: { login: 0, bearer: 0, basic: 0, header: 0, query: 0 } });
 *   app.urls.login; // 'http://127.0.0.1:<port>'
 *   await app.close();
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ADMIN_CREDENTIALS, createAdminArea } from './areas/admin.js';
import { BILLING_API_KEY, createBillingArea } from './areas/billing.js';
import { createInventoryArea, INVENTORY_TOKEN } from './areas/inventory.js';
import { createNotesArea, NOTES_CREDENTIALS } from './areas/notes.js';
import { createReportsArea, REPORTS_TOKEN } from './areas/reports.js';
import { parseTarget, sendJson } from './http.js';

export const HOST = '127.0.0.1';

/** The five areas, in port order, keyed by the kind of secret that opens them. */
export const AREAS = [
  {
    key: 'login',
    name: 'Acme Notes',
    auth: 'login form with a CSRF token, then a session cookie',
    credential: `${NOTES_CREDENTIALS.username} / ${NOTES_CREDENTIALS.password}`,
    weakness: "any user's record by id (IDOR): GET /api/users/{id}",
    create: createNotesArea,
  },
  {
    key: 'bearer',
    name: 'Acme Inventory API',
    auth: 'bearer token',
    credential: `Authorization: Bearer ${INVENTORY_TOKEN}`,
    weakness: 'debug endpoint dumping the environment: GET /api/debug/env',
    create: createInventoryArea,
  },
  {
    key: 'basic',
    name: 'Acme Admin',
    auth: 'HTTP basic authentication',
    credential: `${ADMIN_CREDENTIALS.username} / ${ADMIN_CREDENTIALS.password}`,
    weakness: 'configuration file with credentials: GET /.env',
    create: createAdminArea,
  },
  {
    key: 'header',
    name: 'Acme Billing',
    auth: 'API key in a header',
    credential: `X-API-Key: ${BILLING_API_KEY}`,
    weakness: 'outdated log4j-core disclosed (CVE-2021-44228): GET /actuator/info',
    create: createBillingArea,
  },
  {
    key: 'query',
    name: 'Acme Reports',
    auth: 'token in the query string',
    credential: `?token=${REPORTS_TOKEN}`,
    weakness: 'verbose error with a stack trace: GET /reports/export?format=nope',
    create: createReportsArea,
  },
];

export const DEFAULT_BASE_PORT = 27801;

/** The default port of each area: consecutive from DEFAULT_BASE_PORT, in the order of AREAS. */
export const DEFAULT_PORTS = portsFrom(DEFAULT_BASE_PORT);

export function portsFrom(base) {
  return Object.fromEntries(AREAS.map((area, i) => [area.key, base + i]));
}

/**
 * Starts every area. `ports` overrides the port of any area (0: any free port). Resolves to the
 * areas' base URLs and a `close()` that stops them all; rejects, with every area stopped again, when
 * a port cannot be used.
 */
export async function start({ ports = {} } = {}) {
  for (const key of Object.keys(ports)) {
    if (!AREAS.some((area) => area.key === key)) {
      throw new TypeError(`unknown area "${key}"; the areas are ${AREAS.map((a) => a.key).join(', ')}`);
    }
  }
  const servers = [];
  const urls = {};
  try {
    for (const area of AREAS) {
      const server = await listen(area, ports[area.key] ?? DEFAULT_PORTS[area.key]);
      servers.push(server);
      urls[area.key] = `http://${HOST}:${server.address().port}`;
    }
  } catch (error) {
    await Promise.all(servers.map(stop));
    throw error;
  }
  return { urls, close: () => Promise.all(servers.map(stop)).then(() => undefined) };
}

function listen(area, port) {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return Promise.reject(new RangeError(`the port of the ${area.key} area must be 0-65535, not ${port}`));
  }
  const handle = area.create();
  const server = createServer((request, response) => {
    const target = parseTarget(request.url);
    if (target === undefined) return sendJson(response, 400, { error: 'bad request target' });
    Promise.resolve()
      .then(() => handle(request, response, target))
      .catch(() => {
        // A bug in an area must not take the app down, nor tell the client more than this.
        if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
        else response.destroy();
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `port ${port} (the ${area.key} area) is already in use: is the demo app already running? ` +
                'Stop it, or choose other ports (--base-port N).',
            )
          : error,
      );
    });
    server.listen(port, HOST, () => resolve(server));
  });
}

function stop(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function main() {
  let basePort = DEFAULT_BASE_PORT;
  try {
    const { values } = parseArgs({ options: { 'base-port': { type: 'string' } } });
    if (values['base-port'] !== undefined) basePort = Number(values['base-port']);
    if (!Number.isInteger(basePort) || basePort < 1 || basePort > 65535 - AREAS.length) {
      throw new Error(`--base-port must be a port number, 1-${65535 - AREAS.length}`);
    }
  } catch (error) {
    console.error(`error: ${error.message}\nusage: node examples/demo-app/server.js [--base-port N]`);
    process.exitCode = 1;
    return;
  }
  let app;
  try {
    app = await start({ ports: portsFrom(basePort) });
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  console.log('keyhole demo app: vulnerable on purpose, listening on 127.0.0.1 only\n');
  for (const area of AREAS) {
    console.log(`  ${area.key.padEnd(6)} ${app.urls[area.key]}  ${area.name}`);
    console.log(`         opened by: ${area.auth} (${area.credential})`);
    console.log(`         weakness:  ${area.weakness}`);
  }
  console.log('\nCtrl-C stops it.');
  const shutdown = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
