/**
 * `keyhole scan` with a template that reads a site's Flask session cookie and asks `cookie_unsign`
 * for the key that signed it, as nuclei's weak-secret templates do.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

/** A Flask session cookie (itsdangerous, salt "cookie-session", HMAC key derivation, SHA-1). */
function flaskSession(secret: string): string {
  const hmac = (key: Buffer | string, data: string) => createHmac('sha1', key).update(data).digest();
  const value = `${Buffer.from('{"user":"guest"}').toString('base64url')}.ZV4qAA`;
  return `${value}.${hmac(hmac(secret, 'cookie-session'), value).toString('base64url')}`;
}

const TEMPLATE = `id: flask-weak-secret
info:
  name: Flask session signed with a leaked key
  author: keyhole
  severity: high
http:
  - raw:
      - |
        GET /login HTTP/1.1
        Host: {{Hostname}}

      - |
        GET /report?key={{url_encode(cookie_unsign(session))}} HTTP/1.1
        Host: {{Hostname}}

    extractors:
      - type: regex
        name: session
        part: header
        group: 1
        internal: true
        regex: ["session=([^;\\\\s]+)"]
    matchers:
      - type: word
        part: body
        words: ["key reported"]
`;

let weak: TestHost;
let strong: TestHost;
let ws: Workspace;

const site = (secret: string) => (request: { path: string }) =>
  request.path === '/login'
    ? { headers: { 'Set-Cookie': `session=${flaskSession(secret)}; HttpOnly; Path=/` }, body: 'hello' }
    : { body: 'key reported' };

beforeAll(async () => {
  weak = await startHost('127.0.0.1', site('changeme'));
  strong = await startHost('127.0.0.1', site(randomBytes(16).toString('hex')));
  ws = new Workspace();
  ws.file('flask-weak-secret.yaml', TEMPLATE);
});

afterAll(async () => {
  await Promise.all([weak.close(), strong.close()]);
  ws.remove();
});

describe('scan with a template calling cookie_unsign()', () => {
  it('finds the leaked key of one site, and says why the other site got no second request', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      weak.origin,
      '-u',
      strong.origin,
      '-t',
      'flask-weak-secret.yaml',
      '--no-store',
      '-j',
    ]);
    expect(result.code, result.err).toBe(0);
    const findings = result.out.split('\n').filter((line) => line !== '');
    expect(findings.map((line) => JSON.parse(line)['matched-at'])).toEqual([
      `${weak.origin}/report?key=changeme`,
    ]);
    expect(weak.requests.map((request) => request.query.get('key'))).toEqual([null, 'changeme']);
    expect(strong.requests.map((request) => request.path)).toEqual(['/login']);
    expect(result.err).toContain(
      '[WRN] [flask-weak-secret] requests not sent: {{url_encode(cookie_unsign(session))}} failed: cookie_unsign: could not unsign cookie',
    );
  });
});
