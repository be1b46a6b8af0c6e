/**
 * `keyhole scan` runs a template whose dsl matcher calls wappalyzer(header, body), with the
 * fingerprints file KEYHOLE_WAPPALYZER_FINGERPRINTS names, and says how to enable it without one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

const FINGERPRINTS = join(import.meta.dirname, '../../../dsl/testing/wappalyzer-fingerprints.json');

let host: TestHost;
let ws: Workspace;

const template = `id: tech-wordpress
info:
  name: WordPress behind nginx
  author: keyhole
  severity: info
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    matchers:
      - type: dsl
        dsl:
          - contains(wappalyzer(header, body), "WordPress:6.5.3") && contains(wappalyzer(header, body), "Nginx:1.25.3")
    extractors:
      - type: dsl
        dsl:
          - join(",", wappalyzer(header, body))
`;

beforeAll(async () => {
  host = await startHost('127.0.0.1', () => ({
    headers: {
      Server: 'nginx/1.25.3',
      'Set-Cookie': 'PHPSESSID=7f3a; Path=/; HttpOnly',
      'Content-Type': 'text/html',
    },
    body: '<html><head><meta name="generator" content="WordPress 6.5.3"></head><body>blog</body></html>',
  }));
  ws = new Workspace();
  ws.file('tech.yaml', template);
  ws.file(
    'request.yaml',
    `id: tech-in-request
info:
  name: technologies in a header
  author: keyhole
  severity: info
http:
  - method: GET
    path: ["{{BaseURL}}/"]
    headers:
      X-Tech: '{{wappalyzer("Server: nginx", "")}}'
    matchers:
      - type: status
        status: [200]
`,
  );
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

describe('scan with a dsl matcher calling wappalyzer()', () => {
  it('matches on the technologies the fingerprints file shows in the response', async () => {
    const result = await ws.cli(['scan', '-u', host.origin, '-t', 'tech.yaml', '--no-store'], {
      KEYHOLE_WAPPALYZER_FINGERPRINTS: FINGERPRINTS,
    });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('[tech-wordpress]');
    expect(result.out).toContain('MySQL,Nginx:1.25.3,PHP,WordPress:6.5.3');
    expect(result.err).not.toContain('wappalyzer');
  });

  it('without the fingerprints, matches nothing and says once on stderr how to enable it', async () => {
    const result = await ws.cli(['scan', '-u', host.origin, '-t', 'tech.yaml', '--no-store'], {});
    expect(result.code, result.err).toBe(0);
    expect(result.out).not.toContain('[tech-wordpress]');
    const warnings = result.err
      .split('\n')
      .filter((line) => line.includes('KEYHOLE_WAPPALYZER_FINGERPRINTS'));
    expect(warnings).toEqual([
      "[WRN] wappalyzer: no technology fingerprints: set KEYHOLE_WAPPALYZER_FINGERPRINTS to the path of a fingerprints_data.json (wappalyzergo's, from github.com/projectdiscovery/wappalyzergo; keyhole does not ship it) (what needs its value is skipped)",
    ]);
  });

  it('without the fingerprints, does not send a request that needs the call, and says why', async () => {
    const result = await ws.cli(['scan', '-u', host.origin, '-t', 'request.yaml', '--no-store'], {});
    expect(result.code, result.err).toBe(0);
    expect(result.out).not.toContain('[tech-in-request]');
    expect(result.err).toContain(
      '[WRN] [tech-in-request] requests not sent: {{wappalyzer("Server: nginx", "")}} failed: wappalyzer: no technology fingerprints: set KEYHOLE_WAPPALYZER_FINGERPRINTS to the path of a fingerprints_data.json',
    );
  });
});
