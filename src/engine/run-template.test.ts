import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    { path: '/admin', respond: { status: 200, body: '<title>Admin panel</title> version 4.2.1' } },
    {
      method: 'POST',
      path: '/login',
      when: (r) => r.body === 'user=admin&pass=secret',
      respond: { status: 302, headers: { Location: '/home', 'Set-Cookie': 'sid=abc; Path=/' } },
    },
    { method: 'POST', path: '/login', respond: { status: 403, body: 'denied' } },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

describe('runTemplate', () => {
  it('sends a method/path request to the target and reports the finding with its extracted value', async () => {
    const t = template(`
id: admin-panel
info:
  name: Admin panel
  author: Tester
  severity: info
http:
  - method: GET
    path:
      - "{{BaseURL}}/admin"
    matchers:
      - type: word
        words: ["Admin panel"]
    extractors:
      - type: regex
        group: 1
        regex: ["version ([0-9.]+)"]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.matched).toBe(true);
    expect(run.requests).toBe(1);
    expect(run.events).toHaveLength(1);
    const event = run.events[0]!;
    expect(event['template-id']).toBe('admin-panel');
    expect(event['matched-at']).toBe(`${server.url}/admin`);
    expect(event['extracted-results']).toEqual(['4.2.1']);
    expect(event['matcher-status']).toBe(true);
    expect(server.requests.at(-1)?.headers['user-agent']).toContain('keyhole');
  });

  it('sends a raw request with the body as written and matches on the status', async () => {
    const t = template(`
id: raw-login
info:
  name: Login
  author: tester
  severity: high
http:
  - raw:
      - |
        POST /login HTTP/1.1
        Host: {{Hostname}}
        Content-Type: application/x-www-form-urlencoded

        user=admin&pass=secret
    matchers:
      - type: status
        status: [302]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.events.map((e) => e['matched-at'])).toEqual([`${server.url}/login`]);
    const seen = server.requests.at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe('user=admin&pass=secret');
    expect(seen.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('reports nothing when the matchers do not match', async () => {
    const t = template(`
id: no-match
info:
  name: none
  author: tester
http:
  - method: GET
    path: ["{{BaseURL}}/missing"]
    matchers:
      - type: status
        status: [200]
`);
    const run = await runTemplate(t, server.url, { dispatch });
    expect(run.matched).toBe(false);
    expect(run.events).toEqual([]);
    expect(run.requests).toBe(1);
    expect(run.lastStatus).toBe(404);
  });
});
