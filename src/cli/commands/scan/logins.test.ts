/**
 * Logins without a template through `keyhole scan`: a single-page app logged into in Chromium and
 * scanned with the bearer token its page kept in localStorage, and an OAuth 2.0 token that lives two
 * seconds renewed while the scan runs, before it runs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing } from '../../../dashboard/testing/chromium.js';
import { type FixtureServer, fixtureServer } from '../../../engine/testing/server.js';
import { SPA_PASSWORD, SPA_TOTP_SECRET, SPA_USER, type SpaApp, spaApp } from '../../../engine/testing/spa.js';
import { Workspace } from '../../../scan/testing/workspace.js';

let ws: Workspace;
let spa: SpaApp;
let idp: FixtureServer;
/** Access tokens handed out, with when they stop being taken. */
const issued = new Map<string, number>();
/** The token lifetime the IdP announces, in seconds; the API takes a token a second longer. */
const EXPIRES_IN = 2;

beforeAll(async () => {
  ws = new Workspace();
  spa = await spaApp();
  idp = await fixtureServer([
    {
      method: 'POST',
      path: '/token',
      respond: (r) => {
        const form = new URLSearchParams(r.body);
        if (form.get('client_id') !== 'scanner' || form.get('client_secret') !== 'cl1ent-s3cret')
          return { status: 401, body: '{"error":"invalid_client"}' };
        const token = `short-${issued.size + 1}-${Math.random().toString(36).slice(2, 8)}`;
        issued.set(token, Date.now() + (EXPIRES_IN + 1) * 1000);
        return {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: EXPIRES_IN }),
        };
      },
    },
    {
      path: /^\/api\//,
      respond: (r) => {
        const until = issued.get(r.headers.authorization?.replace(/^Bearer /, '') ?? '');
        return until !== undefined && Date.now() < until
          ? { body: 'ok, signed in' }
          : { status: 401, body: 'token expired' };
      },
    },
  ]);
});

afterAll(async () => {
  await Promise.all([spa.close(), idp.close()]);
  ws.remove();
});

function itemsTemplate(id: string, count: number): string {
  return ws.file(
    `${id}.yaml`,
    `id: ${id}
info: {name: ${id}, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/api/item/{{n}}"]
    payloads:
      n: [${Array.from({ length: count }, (_, i) => i + 1).join(', ')}]
    matchers:
      - type: status
        status: [200]
`,
  );
}

describe.skipIf(chromiumMissing() !== undefined)('a browser login in a scan', () => {
  it('logs into the single-page app in Chromium and scans its API with the token from localStorage', async () => {
    const secrets = ws.file(
      'spa.yaml',
      `dynamic:
  - login:
      url: ${spa.url}/
      browser: true
      username: ${SPA_USER}
      password: {env: SPA_PASSWORD}
      totp: {totp: {env: SPA_TOTP}}
    type: bearertoken
    token: "{{local.access_token}}"
    domains: ["127.0.0.1:${spa.port}"]
`,
    );
    const result = await ws.cli(
      ['scan', '-u', spa.url, '-t', itemsTemplate('spa-items', 3), '-sf', secrets, '--no-store', '-silent'],
      { SPA_PASSWORD, SPA_TOTP: SPA_TOTP_SECRET },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out.trim().split('\n')).toHaveLength(3);
    const token = spa.tokens[0] ?? '';
    expect(spa.tokens).toHaveLength(1);
    const scanned = spa.requests.filter((r) => r.path.startsWith('/api/item/'));
    expect(scanned.map((r) => r.headers.authorization)).toEqual([1, 2, 3].map(() => `Bearer ${token}`));
    expect(`${result.out}${result.err}`).not.toContain(token);
    expect(`${result.out}${result.err}`).not.toContain(SPA_PASSWORD);
  }, 90_000);
});

describe('an OAuth 2.0 token in a scan', () => {
  it('is renewed before it runs out, so no request of a scan longer than its life goes with an expired token', async () => {
    const secrets = ws.file(
      'oauth.yaml',
      `dynamic:
  - oauth2:
      token-url: ${idp.url}/token
      grant: client_credentials
      client-id: scanner
      client-secret: {env: CLIENT_SECRET}
      auth-method: body
    type: bearertoken
    domains: ["127.0.0.1:${idp.port}"]
`,
    );
    // 24 requests at 6 a second: about four seconds, two token lives.
    const result = await ws.cli(
      [
        'scan',
        '-u',
        idp.url,
        '-t',
        itemsTemplate('oauth-items', 24),
        '-sf',
        secrets,
        '--no-store',
        '-rl',
        '6',
        '-c',
        '1',
      ],
      { CLIENT_SECRET: 'cl1ent-s3cret' },
    );
    expect(result.code, result.err).toBe(0);
    const api = idp.requests.filter((r) => r.path.startsWith('/api/'));
    expect(api).toHaveLength(24);
    expect(result.out.trim().split('\n')).toHaveLength(24);
    // Renewed while the scan ran, each time before the API refused the token: no 401, no resend.
    expect(issued.size).toBeGreaterThanOrEqual(2);
    expect(new Set(api.map((r) => r.headers.authorization)).size).toBe(issued.size);
  }, 60_000);
});
