/**
 * A blind SSRF found by its callback, end to end on a real SQLite file: the scan stores the finding
 * with its interaction, the API and the dashboard show it, and `keyhole retest` registers its own
 * session to see whether the target still calls back.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, type ServedDashboard, serveDashboard } from '../../../dashboard/testing/serve.js';
import { type FixtureServer, fixtureServer } from '../../../engine/testing/server.js';
import { fetchThroughListener } from '../../../oast/testing/blind-ssrf.js';
import { Workspace } from '../../../scan/testing/workspace.js';
import { sqliteTestDatabase } from '../../../store/testing/databases.js';

const BLIND_SSRF = `id: blind-ssrf
info:
  name: Blind SSRF
  author: keyhole
  severity: high
http:
  - method: GET
    path:
      - "{{BaseURL}}/fetch?url=http://{{interactsh-url}}/"
    matchers:
      - type: word
        part: interactsh_protocol
        words: ["http"]
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const app = { vulnerable: true };
let target: FixtureServer;
let served: ServedDashboard;
let ws: Workspace;
let listen: string[];

beforeAll(async () => {
  const http = await freePort();
  const dns = await freePort();
  listen = [
    '--oast-listen',
    `127.0.0.1:${http}`,
    '--oast-domain',
    'oast.test',
    '--oast-dns-listen',
    `127.0.0.1:${dns}`,
    '-interactions-poll-duration',
    '0.2',
    '-interactions-cooldown-period',
    '1',
  ];
  // The application fetches the URL it is given from a network whose resolver is the listener's DNS.
  target = await fixtureServer([
    {
      method: 'GET',
      path: '/fetch',
      respond: async (request) => {
        const url = request.query.get('url');
        if (app.vulnerable && url !== null)
          await fetchThroughListener(url, { host: '127.0.0.1', port: dns }, http);
        return { body: 'queued' };
      },
    },
  ]);
  served = await serveDashboard(await sqliteTestDatabase());
  ws = new Workspace();
  ws.file('blind-ssrf.yaml', BLIND_SSRF);
});

afterAll(async () => {
  await served?.close();
  await target?.close();
  ws?.remove();
});

describe('a finding confirmed by an out-of-band callback', () => {
  it('is stored with its interaction, shown by the API and the dashboard, and retested with a session of its own', async () => {
    const db = (served.store.location as { path: string }).path;
    const scan = await ws.cli(['scan', '-u', target.url, '-t', 'blind-ssrf.yaml', '--db', db, ...listen]);
    expect(scan.code, scan.err).toBe(0);
    const scanId = /recorded +scan ([a-z0-9]{20}) in /.exec(scan.err)?.[1] ?? '';
    const [finding] = await served.store.findings.ofScan(scanId, { limit: 10 });
    expect(finding?.event.interaction).toMatchObject({ protocol: 'http', 'remote-address': '127.0.0.1' });
    const uniqueId = finding?.event.interaction?.['unique-id'] ?? '';

    const team = await served.store.teams.ensure('default');
    const key = (await served.store.keys.create({ teamId: team.id, name: 'reader' })).secret;
    const api = await fetch(`${served.url}/v1/scans/vuln/${finding?.id}`, { headers: { 'X-API-Key': key } });
    expect(api.status).toBe(200);
    const body = JSON.stringify(await api.json());
    expect(body).toContain(`"unique-id":"${uniqueId}"`);
    expect(body).toContain('"protocol":"http"');

    const browser = new Browser(served.url);
    expect((await browser.signIn(key)).status).toBe(303);
    const page = await browser.get(`/findings/${finding?.id}`);
    expect(page.body).toContain('<h2>Out-of-band interaction</h2>');
    expect(page.body).toContain(`HTTP callback to ${uniqueId} from 127.0.0.1`);
    expect(page.body).toContain('GET / HTTP/1.1');

    const still = await ws.cli(['retest', '--scan', scanId, '--db', db, ...listen]);
    expect(still.code, still.err).toBe(0);
    expect(still.err).toContain("out-of-band callbacks go to keyhole's listener");
    expect(still.out).toContain('→ matched');

    app.vulnerable = false;
    const fixed = await ws.cli(['retest', '--scan', scanId, '--db', db, ...listen]);
    expect(fixed.code, fixed.err).toBe(0);
    expect(fixed.out).toContain('→ not matched (fixed)');
  }, 60_000);

  it('contacts no interactsh server when no finding of the retest needs one', async () => {
    ws.file(
      'plain.yaml',
      `id: plain\ninfo: {name: plain, author: keyhole, severity: low}\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/fetch"]\n    matchers:\n      - type: word\n        words: [queued]\n`,
    );
    const db = (served.store.location as { path: string }).path;
    const scan = await ws.cli(['scan', '-u', target.url, '-t', 'plain.yaml', '--db', db, '-ni']);
    const scanId = /recorded +scan ([a-z0-9]{20}) in /.exec(scan.err)?.[1] ?? '';
    // An address nothing listens on: a registration would fail the retest.
    const retest = await ws.cli(['retest', '--scan', scanId, '--db', db, '-iserver', 'http://127.0.0.1:9']);
    expect(retest.code, retest.err).toBe(0);
    expect(retest.err).not.toContain('out-of-band');
    expect(retest.out).toContain('→ matched');
  }, 60_000);
});
