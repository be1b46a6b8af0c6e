/**
 * Some APIs refuse a wrong key with 403 rather than 401. 403 is not counted as a refusal (a
 * working secret meets it on what its user may not see), so such a scan does not fail; but when
 * every answer to an entry's requests was 403, the scan says so, even with `-silent`, and the
 * summary counts the 403s. A real API on loopback that answers 403 to any key but its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeenRequest, startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

const KEY = 'key-51d0e4';

let api: TestHost;
let ws: Workspace;

/** `/admin` is 403 for every key; everything else takes the one key, and refuses others with 403. */
function answer(request: SeenRequest) {
  if (request.path === '/admin') return { status: 403, body: 'not for you' };
  return request.headers['x-api-key'] === KEY ? { body: 'ok' } : { status: 403, body: 'invalid key' };
}

beforeAll(async () => {
  api = await startHost('127.0.0.1', answer);
  ws = new Workspace();
  ws.file('api.yaml', pathsTemplate('api', ['{{BaseURL}}/a', '{{BaseURL}}/b', '{{BaseURL}}/admin']));
});

afterAll(async () => {
  await api.close();
  ws.remove();
});

function keyFile(key: string): string {
  return ws.file(
    key === KEY ? 'right-key.yaml' : 'wrong-key.yaml',
    `static:\n  - type: header\n    domains: ["${api.authority}"]\n    headers: [{key: X-Api-Key, value: ${key}}]\n`,
  );
}

function scan(...flags: string[]) {
  return ws.cli(['scan', '-u', api.origin, '-t', 'api.yaml', '--no-store', ...flags]);
}

describe('a secret every answer to which was 403 Forbidden', () => {
  it('is warned about even with -silent, without failing the scan or showing the secret', async () => {
    const result = await scan('-sf', keyFile('wrong-0000'), '-silent');
    expect(result.code).toBe(0);
    expect(result.err).toBe(
      '[WRN] static[0] of wrong-key.yaml: the target answered 403 Forbidden to all 3 requests that carried its secret: if it refuses a wrong or expired secret with 403, this scan was not authenticated; add verify: to the entry to check the secret before scanning\n',
    );
    expect(result.err).not.toContain('wrong-0000');
  });

  it('counts the 403s in the summary', async () => {
    const result = await scan('-sf', keyFile('wrong-0000'));
    expect(result.err).toMatch(/static\[0\] of wrong-key\.yaml {2}3 requests, 3 answered 403\n/);
  });

  it('is not warned about when the target answered anything else too', async () => {
    const result = await scan('-sf', keyFile(KEY));
    expect(result.code).toBe(0);
    expect(result.err).not.toContain('[WRN]');
    expect(result.err).toMatch(/static\[0\] of right-key\.yaml {2}3 requests, 1 answered 403\n/);
  });
});
