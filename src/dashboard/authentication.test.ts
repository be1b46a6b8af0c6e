/**
 * How authenticated a scan was, as the scan page and the scans list show it: read from `scan_auth`
 * over a real server and a real store, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scan, Store } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import {
  authenticatedScan,
  Browser,
  entryFigures,
  resultEvent,
  type ServedDashboard,
  serveDashboard,
  uploadedScan,
} from './testing/serve.js';

/** The text of each cell of the entry's row, tags dropped and entities kept as the page has them. */
function cellsOf(html: string, fingerprint: string): string[] {
  const row = new RegExp(`<tr data-auth-entry="${fingerprint}"[^>]*>(.*?)</tr>`, 's').exec(html)?.[1];
  if (row === undefined) throw new Error(`the page has no row for the entry ${fingerprint}`);
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => (m[1] ?? '').replace(/<[^>]+>/g, ''));
}

function sectionOf(html: string): string {
  const section = /<section class="authentication".*?<\/section>/s.exec(html)?.[0];
  if (section === undefined) throw new Error('the page has no Authentication section');
  return section;
}

describe.each(ENGINES)('the authentication the dashboard shows on $engine', ({ create }) => {
  let served: ServedDashboard;
  let store: Store;
  let key: string;
  let turnedAway: Scan;
  let clean: Scan;
  let loginFailed: Scan;
  let queued: Scan;
  let withoutSecrets: Scan;
  let hostileName: Scan;

  beforeAll(async () => {
    served = await serveDashboard(await create());
    store = served.store;
    const team = await store.teams.ensure('default');
    key = (await store.keys.create({ teamId: team.id, name: 'viewer' })).secret;
    withoutSecrets = await uploadedScan(store, team.id, 'imported', [resultEvent(1)]);
    turnedAway = await authenticatedScan(store, team.id, 'expired token', {
      unauthenticated: 2,
      entries: [
        entryFigures('static[0] of secrets.yaml', { requests: 5, rejected: 5 }),
        entryFigures('dynamic[0] of secrets.yaml', {
          kind: 'dynamic',
          types: ['cookie', 'header'],
          scope: 'app.test, app.test:8443',
          requests: 3,
          logins: 2,
          relogins: 1,
        }),
      ],
    });
    clean = await authenticatedScan(store, team.id, 'all signed in', {
      unauthenticated: 1,
      entries: [entryFigures('static[0] of secrets.yaml', { requests: 9 })],
    });
    loginFailed = await authenticatedScan(store, team.id, 'login broke', {
      unauthenticated: 0,
      entries: [
        entryFigures('dynamic[0] of secrets.yaml', {
          kind: 'dynamic',
          refused: 4,
          logins: 1,
          loginFailures: 1,
        }),
      ],
    });
    const planned = entryFigures('static[0] of worker.yaml');
    queued = await store.scans.create({
      teamId: team.id,
      name: 'waiting for a worker',
      status: 'queued',
      isCloud: true,
      targets: ['https://app.test'],
      plannedEntries: [planned],
    });
    hostileName = await authenticatedScan(store, team.id, 'hostile file name', {
      unauthenticated: 0,
      entries: [entryFigures('static[0] of <b>x</b>.yaml', { requests: 2, rejected: 2 })],
    });
  });
  afterAll(() => served?.close());

  const page = async (path: string) => {
    const browser = new Browser(served.url);
    expect((await browser.signIn(key)).status).toBe(303);
    const answer = await browser.get(path);
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('shows the share of requests the target took and marks the entry whose secret it turned away every time', async () => {
    const section = sectionOf(await page(`/scans/${turnedAway.id}`));
    expect(section).toContain('<p class="auth-share error"><strong>Problem: </strong>');
    expect(section).toContain(
      'Authenticated: 3 of 10 requests (30%); 5 more carried a secret the target turned away',
    );
    expect(section).toContain(
      '<li>static[0] of secrets.yaml: the target turned its secret away on every request</li>',
    );
    expect(section).toMatch(/<tr data-auth-entry="fp-static\[0\] of secrets.yaml" class="auth-error">/);
    expect(cellsOf(section, 'fp-static\\[0\\] of secrets.yaml')).toEqual([
      'static[0] of secrets.yamlProblem: the target turned its secret away on every request',
      'static: header',
      'app.test',
      '5',
      '0',
      '5',
      '0 / 0 / 0',
    ]);
    expect(cellsOf(section, 'fp-dynamic\\[0\\] of secrets.yaml')).toEqual([
      'dynamic[0] of secrets.yaml',
      'dynamic: cookie, header',
      'app.test, app.test:8443',
      '3',
      '0',
      '0',
      '2 / 0 / 1',
    ]);
  });

  it('shows a scan every request of which the target took without any warning', async () => {
    const section = sectionOf(await page(`/scans/${clean.id}`));
    expect(section).toContain('<p class="auth-share">Authenticated: 9 of 10 requests (90%)</p>');
    expect(section).not.toMatch(/Problem|Warning|auth-error|auth-warning/);
  });

  it('shows a failed login as a problem, with the requests it kept from being sent', async () => {
    const section = sectionOf(await page(`/scans/${loginFailed.id}`));
    expect(section).toContain(
      '<p class="auth-share error"><strong>Problem: </strong>No request was sent.</p>',
    );
    expect(section).toContain('<li>dynamic[0] of secrets.yaml: login failed</li>');
    expect(cellsOf(section, 'fp-dynamic\\[0\\] of secrets.yaml')).toEqual([
      'dynamic[0] of secrets.yamlProblem: login failed',
      'dynamic: header',
      'app.test',
      '0',
      '4',
      '0',
      '1 / 1 / 0',
    ]);
  });

  it("marks a queued scan's entries planned, with nothing sent yet and nothing to warn of", async () => {
    const section = sectionOf(await page(`/scans/${queued.id}`));
    expect(section).toContain('<p class="auth-share">No request sent yet.</p>');
    expect(cellsOf(section, 'fp-static\\[0\\] of worker.yaml')[0]).toBe('static[0] of worker.yaml planned');
    expect(section).not.toMatch(/Problem|Warning/);
  });

  it('shows no Authentication section for a scan without secret files', async () => {
    const body = await page(`/scans/${withoutSecrets.id}`);
    expect(body).toContain('<h2>Findings by severity</h2>');
    expect(body).not.toContain('Authentication');
    expect(body).not.toContain('data-auth-entry');
  });

  it('escapes the name of a secret file in entry labels, on the scan page and in the scans list', async () => {
    const scanPage = await page(`/scans/${hostileName.id}`);
    const list = await page('/scans');
    for (const body of [scanPage, list]) {
      expect(body).not.toContain('<b>');
      // Preact escapes `<` and `&` in text and `"` and `&` in attributes: enough for no tag to open.
      expect(body).toContain('static[0] of &lt;b>x&lt;/b>.yaml');
    }
  });

  it('marks in the scans list only the scans whose authentication had a problem, linking to it', async () => {
    const list = await page('/scans');
    const marked = [
      ...list.matchAll(/<a class="auth-mark auth-error" href="\/scans\/([0-9a-v]{20})#authentication"/g),
    ]
      .map((m) => m[1])
      .sort();
    expect(marked).toEqual([turnedAway.id, loginFailed.id, hostileName.id].sort());
    expect(list).toContain('>authentication problem</a>');
  });
});
