/**
 * Area 2, "Acme Inventory API": a JSON API that wants `Authorization: Bearer <token>`.
 *
 * Planted weakness: a debug endpoint left enabled in production, GET /api/debug/env, dumps the
 * process environment, database password and signing key included (all fake).
 */
import { methodNotAllowed, notFound, sameSecret, sendJson } from '../http.js';

export const INVENTORY_TOKEN = 'demo-inventory-token-7f3c9a';

const ITEMS = [
  { sku: 'TEA-001', name: 'Darjeeling, 250 g', stock: 42 },
  { sku: 'JAM-014', name: 'Strawberry jam', stock: 7 },
  { sku: 'TRT-003', name: 'Jam tarts, box of 12', stock: 0 },
];

/** What the debug endpoint shows: an environment as a real service might have it (fake values). */
const ENVIRONMENT = {
  NODE_ENV: 'production',
  PORT: '8080',
  SERVICE_NAME: 'inventory-api',
  DATABASE_URL: 'postgres://inventory:Inv3nt0ry-demo-only@db.internal.acme.test:5432/inventory',
  REDIS_URL: 'redis://cache.internal.acme.test:6379/2',
  JWT_SIGNING_KEY: 'demo-signing-key-not-a-real-secret',
  SMTP_PASSWORD: 'demo-smtp-password',
  LOG_LEVEL: 'info',
};

export function createInventoryArea() {
  return (request, response, { path }) => {
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !sameSecret(token, INVENTORY_TOKEN)) {
      const challenge =
        token === undefined ? 'Bearer realm="inventory"' : 'Bearer realm="inventory", error="invalid_token"';
      return sendJson(
        response,
        401,
        { error: 'a valid bearer token is required' },
        { 'WWW-Authenticate': challenge },
      );
    }
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    if (path === '/api/items') return sendJson(response, 200, { items: ITEMS });
    const item = /^\/api\/items\/([A-Z0-9-]{1,20})$/.exec(path);
    if (item !== null) {
      const found = ITEMS.find((i) => i.sku === item[1]);
      return found === undefined ? notFound(response) : sendJson(response, 200, found);
    }
    if (path === '/api/debug/env') {
      // The weakness: a troubleshooting aid that should never have shipped.
      return sendJson(response, 200, {
        pid: process.pid,
        uptime: Math.round(process.uptime()),
        env: ENVIRONMENT,
      });
    }
    return notFound(response);
  };
}
