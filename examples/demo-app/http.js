/**
 * Helpers shared by the demo app's areas: reading a request without trusting it, answering it, and
 * comparing credentials. Nothing here throws on hostile input.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bodies larger than this are refused with 413 (the app only ever receives small forms). */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Splits a request-target into its path (kept as sent, never decoded) and its query. Returns
 * undefined for targets that are not origin-form (`http://host/x`, `*`), which the app refuses.
 */
export function parseTarget(target) {
  if (typeof target !== 'string' || !target.startsWith('/')) return undefined;
  const at = target.indexOf('?');
  return {
    path: at === -1 ? target : target.slice(0, at),
    query: new URLSearchParams(at === -1 ? '' : target.slice(at + 1)),
  };
}

/** Reads the request body as UTF-8 text; undefined when it is larger than MAX_BODY_BYTES. */
export function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')),
    );
    request.on('error', reject);
  });
}

/** The cookies of the request's Cookie header, by name (the first of a repeated name wins). */
export function cookiesOf(request) {
  const found = new Map();
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at === -1) continue;
    const name = pair.slice(0, at).trim();
    if (name !== '' && !found.has(name)) found.set(name, pair.slice(at + 1).trim());
  }
  return found;
}

/** Compares a credential from a request with the expected one without leaking timing. */
export function sameSecret(given, expected) {
  if (typeof given !== 'string') return false;
  const digest = (text) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function newToken() {
  return randomBytes(16).toString('hex');
}

/**
 * Remembers `value` under `key`, forgetting the oldest entries beyond `limit`, so that a client
 * requesting login forms in a loop cannot grow the app's memory without bound.
 */
export function remember(map, key, value, limit = 10_000) {
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= limit) break;
    map.delete(oldest);
  }
}

export function send(response, status, body, headers = {}) {
  response.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

export function sendJson(response, status, value, headers = {}) {
  send(response, status, `${JSON.stringify(value, null, 2)}\n`, {
    'Content-Type': 'application/json; charset=utf-8',
    ...headers,
  });
}

export function sendText(response, status, text, headers = {}) {
  send(response, status, text, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
}

export function sendHtml(response, status, html, headers = {}) {
  send(response, status, html, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
}

export function notFound(response) {
  sendJson(response, 404, { error: 'not found' });
}

export function methodNotAllowed(response, allowed) {
  sendJson(response, 405, { error: 'method not allowed' }, { Allow: allowed });
}

export function escapeHtml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
}

/** A small HTML page with the app's name in the title. */
export function page(title, body) {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}
