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
  server = await fixtureServer([{ path: /.*/, respond: { body: 'seen' } }]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

const header = `
info:
  name: test
  author: tester
  severity: info
`;

function pathTemplate(path: string) {
  return template(`id: path-on-target${header}
http:
  - method: GET
    path: ["${path}"]
    matchers:
      - type: word
        words: ["seen"]
`);
}

function rawTemplate(requestLine: string) {
  return template(`id: raw-on-target${header}
http:
  - raw:
      - |
        ${requestLine}
        Host: {{Hostname}}
    matchers:
      - type: word
        words: ["seen"]
`);
}

/** The request-target the server received for one request of `t` on the target `server.url + suffix`. */
async function requestTarget(t: ReturnType<typeof template>, suffix: string): Promise<string> {
  const before = server.requests.length;
  const run = await runTemplate(t, `${server.url}${suffix}`, { dispatch });
  expect(run.failures).toEqual([]);
  const sent = server.requests.slice(before).map((r) => r.target);
  expect(sent).toHaveLength(1);
  return sent[0] ?? '';
}

describe('a target with a path and a query: the request line of path requests, as nuclei builds it', () => {
  it.each([
    ['/p2/?a=b', '{{BaseURL}}/whoami', '/p2/whoami?a=b'],
    ['/p2?a=b', '{{BaseURL}}/whoami', '/p2/whoami?a=b'],
    ['?a=b', '{{BaseURL}}/whoami', '/whoami?a=b'],
    ['/p2/?a=b', '{{BaseURL}}', '/p2/?a=b'],
    ['/p2?a=b', '{{BaseURL}}', '/p2?a=b'],
    ['/p2/?a=b', '{{BaseURL}}/', '/p2/?a=b'],
    ['/p2/?a=b', '{{BaseURL}}/whoami?x=1', '/p2/whoami?a=b&x=1'],
    ['/p2/?a=b', '{{BaseURL}}?x=1', '/p2/?a=b&x=1'],
    ['/p2/?a=b', '{{BaseURL}}/whoami?a=c', '/p2/whoami?a=b&a=c'],
    ['/p2/?a=b', '{{BaseURL}}/whoami?a=b', '/p2/whoami?a=b&a=b'],
    ['/p2/?a=b', '{{RootURL}}/whoami', '/whoami?a=b'],
    ['/p2/?a=b', '{{Scheme}}://{{Hostname}}/whoami', '/whoami?a=b'],
    ['/p2/?a=b', '{{Scheme}}://{{Host}}:{{Port}}/whoami', '/whoami?a=b'],
    ['/p2/index.php?a=b', '{{RootURL}}{{Path}}/x-{{File}}', '/p2/x-index.php?a=b'],
    ['/p2/?a=b', '{{RootURL}}{{Path}}/x-{{File}}', '/p2/x-p2?a=b'],
    ['/p2/index.php?a=b', '{{BaseURL}}.bak', '/p2/index.php.bak?a=b'],
  ])('on %s, %s is sent as %s', async (suffix, path, expected) => {
    expect(await requestTarget(pathTemplate(path), suffix)).toBe(expected);
  });
});

describe('a target with a path and a query: the request line of raw requests, as nuclei builds it', () => {
  it.each([
    ['/p2/?a=b', 'GET /whoami HTTP/1.1', '/p2/whoami?a=b'],
    ['/p2?a=b', 'GET /whoami HTTP/1.1', '/p2/whoami?a=b'],
    ['?a=b', 'GET /whoami HTTP/1.1', '/whoami?a=b'],
    ['/p2/?a=b', 'GET /whoami?x=1 HTTP/1.1', '/p2/whoami?a=b&x=1'],
    ['/p2/?a=b', 'GET / HTTP/1.1', '/p2/?a=b'],
    ['/p2/?a=b', 'GET HTTP/1.1', '/p2/?a=b'],
    ['/p2?a=b', 'GET {{BaseURL}}/whoami HTTP/1.1', '/p2/whoami?a=b'],
    ['/p2?a=b', 'GET {{BaseURL}} HTTP/1.1', '/p2?a=b'],
    ['/p2/?a=b', 'GET {{RootURL}}/whoami HTTP/1.1', '/p2/whoami?a=b'],
  ])('on %s, %s is sent as %s', async (suffix, requestLine, expected) => {
    expect(await requestTarget(rawTemplate(requestLine), suffix)).toBe(expected);
  });
});
