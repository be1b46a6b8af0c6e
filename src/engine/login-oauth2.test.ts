import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpRequest } from '../http/index.js';
import { loadSecretFiles, SecretResolver, type SecretSet } from '../secretfile/index.js';
import { folderWith } from '../secretfile/testing/fixtures.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { TemplateLoginRunner } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';

let idp: FixtureServer;
let elsewhere: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);
const runner = new TemplateLoginRunner({ dispatch });
let issued = 0;
/** The tokens the API takes; a test revokes them to show a 401 renewing the token. */
const live = new Set<string>();
const basic = `Basic ${Buffer.from('scanner:cl1ent-secret').toString('base64')}`;

beforeAll(async () => {
  elsewhere = await fixtureServer([{ path: /.*/, respond: { body: 'collected' } }]);
  idp = await fixtureServer([
    {
      method: 'POST',
      path: '/token',
      respond: (r) => {
        const form = new URLSearchParams(r.body);
        const viaBasic = r.headers.authorization === basic;
        const viaBody = form.get('client_id') === 'scanner' && form.get('client_secret') === 'cl1ent-secret';
        if (!viaBasic && !viaBody) return { status: 401, body: '{"error":"invalid_client"}' };
        if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'api.read')
          return { status: 400, body: '{"error":"invalid_grant","error_description":"bad grant"}' };
        issued++;
        const token = `at-${issued}-${viaBasic ? 'basic' : 'body'}`;
        live.add(token);
        return {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 60 }),
        };
      },
    },
    {
      method: 'POST',
      path: '/moved',
      respond: () => ({ status: 307, headers: { Location: `${elsewhere.url}/token` } }),
    },
    {
      path: '/api',
      respond: (r) => {
        const token = r.headers.authorization?.replace('Bearer ', '') ?? '';
        return live.has(token) ? { body: `ok ${token}` } : { status: 401, body: 'expired' };
      },
    },
  ]);
});

afterAll(async () => {
  await idp.close();
  await elsewhere.close();
  await client.close();
});

async function secrets(oauth2: string): Promise<SecretSet> {
  const dir = await folderWith({
    's.yaml': `dynamic:
  - oauth2:
${oauth2}      client-id: scanner
      client-secret: {env: CLIENT_SECRET}
      grant: client_credentials
      scope: api.read
    type: bearertoken
    domains: ["127.0.0.1:${idp.port}"]
`,
  });
  const loaded = await loadSecretFiles(['s.yaml'], { cwd: dir, env: { CLIENT_SECRET: 'cl1ent-secret' } });
  if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.secrets;
}

const api = (): HttpRequest => ({
  method: 'GET',
  scheme: 'http',
  hostname: '127.0.0.1',
  port: idp.port,
  target: '/api',
  headers: [],
  body: '',
});

async function callApi(resolver: SecretResolver): Promise<string> {
  const sent = await chain(dispatch, [withSecrets(resolver)])(api(), {});
  return `${sent.response.statusCode} ${sent.response.body.toString('utf8')}`;
}

describe('OAuth 2.0 logins', () => {
  it('get a token with Basic client auth, send it as the bearer token, and renew it before expires_in', async () => {
    let now = 1_000_000;
    const resolver = new SecretResolver(await secrets(`      token-url: ${idp.url}/token\n`), {
      runner,
      now: () => now,
    });
    const first = await callApi(resolver);
    expect(first).toMatch(/^200 ok at-\d+-basic$/);
    now += 50_000;
    expect(await callApi(resolver)).toBe(first);
    // 60 s tokens are renewed 6 s before they run out.
    now += 5_000;
    const renewed = await callApi(resolver);
    expect(renewed).toMatch(/^200 ok at-\d+-basic$/);
    expect(renewed).not.toBe(first);
  });

  it('renew the token when the API answers 401, without reauth: written', async () => {
    const resolver = new SecretResolver(await secrets(`      token-url: ${idp.url}/token\n`), { runner });
    const first = await callApi(resolver);
    live.clear();
    const after = await callApi(resolver);
    expect(after).toMatch(/^200 ok at-\d+-basic$/);
    expect(after).not.toBe(first);
  });

  it('send the client secret in the body when auth-method says so', async () => {
    const resolver = new SecretResolver(
      await secrets(`      token-url: ${idp.url}/token\n      auth-method: body\n`),
      { runner },
    );
    expect(await callApi(resolver)).toMatch(/^200 ok at-\d+-body$/);
    const request = idp.requests.filter((r) => r.path === '/token').at(-1);
    expect(request?.headers.authorization).toBeUndefined();
  });

  it('never follow the token request away from the token URL origin: the client secret stays', async () => {
    const resolver = new SecretResolver(await secrets(`      token-url: ${idp.url}/moved\n`), { runner });
    const applied = await resolver.apply(api());
    expect(applied.kind === 'error' && applied.reason).toMatch(
      /the token request was redirected to 127\.0\.0\.1:\d+, away from the token URL's origin; the redirect was not followed, so the client secret did not go there/,
    );
    expect(elsewhere.requests).toEqual([]);
  });

  it('mask the access token wherever it shows', async () => {
    const resolver = new SecretResolver(await secrets(`      token-url: ${idp.url}/token\n`), { runner });
    const answer = await callApi(resolver);
    expect(resolver.redactor.redact(answer)).toBe('200 ok [REDACTED]');
    expect(resolver.redactor.redact('token_type Bearer')).toBe('token_type Bearer');
  });
});
