/**
 * `keyhole scan` with templates whose `{{…}}` cannot be evaluated at run time: the requests are not
 * sent, and the scan says so (once per template and cause, however many targets) and counts them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

let host: TestHost;
let ws: Workspace;

const template = (id: string, path: string, variables = '') => `id: ${id}
info:
  name: ${id}
  author: keyhole
  severity: info
${variables}http:
  - method: GET
    path: ["${path}"]
    matchers:
      - type: status
        status: [200]
`;

beforeAll(async () => {
  host = await startHost('127.0.0.1', () => ({ body: 'ok' }));
  ws = new Workspace();
  mkdirSync(join(ws.dir, 't'));
  ws.file('t/missing-variable.yaml', template('missing-variable', '{{BaseURL}}/?key={{api_key}}'));
  ws.file('t/helper-error.yaml', template('helper-error', '{{BaseURL}}/?key={{cookie_unsign(Hostname)}}'));
  ws.file(
    't/variable-error.yaml',
    template('variable-error', '{{BaseURL}}/?key={{k}}', 'variables:\n  k: "{{cookie_unsign(Hostname)}}"\n'),
  );
  ws.file('t/fine.yaml', template('fine', '{{BaseURL}}/fine'));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

describe('scan with requests whose {{…}} cannot be evaluated', () => {
  it('warns once per template and cause, naming the variable or the helper error (in the request or in variables:), and counts them', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-u',
      `${host.origin}/second`,
      '-t',
      't',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const notSent = result.err.split('\n').filter((line) => line.includes('requests not sent'));
    expect(notSent.sort()).toEqual([
      '[WRN] [helper-error] requests not sent: {{cookie_unsign(Hostname)}} failed: cookie_unsign: could not decode cookie',
      '[WRN] [missing-variable] requests not sent: unresolved {{api_key}}; give the value with -var name=value',
      '[WRN] [variable-error] requests not sent: {{cookie_unsign(Hostname)}} failed: cookie_unsign: could not decode cookie',
    ]);
    expect(result.err).toMatch(
      /^ {2}not sent {7}6 requests: a \{\{…\}\} could not be evaluated \(warned above\)$/m,
    );
    expect(result.out.match(/\[fine\]/g)).toHaveLength(2);
    expect(host.requests.filter((request) => request.query.has('key'))).toEqual([]);
  });

  it('sends them once the variable is given, and then says nothing of them', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      host.origin,
      '-t',
      't/missing-variable.yaml',
      '-var',
      'api_key=k1',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).not.toContain('not sent');
    expect(result.out).toContain('[missing-variable]');
    expect(host.requests.map((request) => request.query.get('key'))).toContain('k1');
  });
});
