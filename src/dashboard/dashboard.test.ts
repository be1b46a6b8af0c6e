import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scan, Store } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import { Sessions } from './sessions.js';
import {
  type Answer,
  Browser,
  hiddenField,
  resultEvent,
  type ServedDashboard,
  serveDashboard,
  uploadedScan,
} from './testing/serve.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

describe.each(ENGINES)('the dashboard on $engine', ({ create }) => {
  let served: ServedDashboard;
  let store: Store;
  let key: string;
  let otherKey: string;
  let big: Scan;
  let later: Scan;
  let othersScan: Scan;

  beforeAll(async () => {
    served = await serveDashboard(await create());
    store = served.store;
    const team = await store.teams.ensure('default');
    const other = await store.teams.ensure('partners');
    key = (await store.keys.create({ teamId: team.id, name: 'browser' })).secret;
    otherKey = (await store.keys.create({ teamId: other.id, name: 'partner' })).secret;
    const events = Array.from({ length: 130 }, (_, n) =>
      resultEvent(n, {
        host: `h${n % 3}.test`,
        'template-id': `t${n % 4}`,
        info: { ...resultEvent(n).info, severity: SEVERITIES[n % 5] ?? 'info' },
      }),
    );
    big = await uploadedScan(store, team.id, 'nightly', events);
    // The later scan no longer finds the first 30 and finds 10 new ones.
    later = await uploadedScan(store, team.id, 'nightly again', [
      ...events.slice(30),
      ...Array.from({ length: 10 }, (_, n) => resultEvent(1000 + n)),
    ]);
    othersScan = await uploadedScan(store, other.id, 'partner secret scan', [resultEvent(1)]);
  });
  afterAll(() => served?.close());

  const signedIn = async (apiKey = key) => {
    const browser = new Browser(served.url);
    const answer = await browser.signIn(apiKey);
    expect(answer.status).toBe(303);
    return browser;
  };

  it('sends a browser without a session to the sign-in form, keeping where it was going', async () => {
    const browser = new Browser(served.url);
    expect((await browser.get('/')).headers.get('location')).toBe('/sign-in');
    const answer = await browser.get(`/scans/${big.id}?team_id=x`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(
      `/sign-in?next=${encodeURIComponent(`/scans/${big.id}?team_id=x`)}`,
    );
  });

  it('answers every page with a strict Content-Security-Policy and no sniffing or referrer', async () => {
    const browser = await signedIn();
    for (const path of [
      '/sign-in',
      '/scans',
      `/scans/${big.id}`,
      '/assets',
      '/compare',
      '/static/dashboard.js',
    ]) {
      const answer = await browser.get(path);
      expect(answer.headers.get('content-security-policy')).toContain(
        "default-src 'none'; script-src 'self'",
      );
      expect(answer.headers.get('content-security-policy')).toContain(
        "frame-ancestors 'none'; base-uri 'none'",
      );
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('exchanges a key for an HttpOnly SameSite=Strict session cookie that does not hold the key', async () => {
    const browser = new Browser(served.url);
    const form = await browser.get('/sign-in');
    const answer = await browser.post('/sign-in', { csrf: hiddenField(form.body, 'csrf'), key });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/scans');
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('keyhole_session='));
    expect(cookie).toMatch(/; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain('Secure');
    expect(answer.headers.getSetCookie().join('\n')).not.toContain(key);
    expect((await browser.get('/scans')).body).toContain('nightly');
  });

  it('refuses a sign-in without the form token, with a wrong key, or posted from another site', async () => {
    const browser = new Browser(served.url);
    await browser.get('/sign-in');
    expect((await browser.post('/sign-in', { csrf: 'guess', key })).status).toBe(403);
    const form = await browser.get('/sign-in');
    const wrong = await browser.post('/sign-in', {
      csrf: hiddenField(form.body, 'csrf'),
      key: `${key.slice(0, -2)}xx`,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('not valid');
    expect(wrong.body).not.toContain(key.slice(3, 20));
    const again = await browser.get('/sign-in');
    const foreign = await browser.post(
      '/sign-in',
      { csrf: hiddenField(again.body, 'csrf'), key },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(browser.cookie('keyhole_session')).toBeUndefined();
  });

  it('sends the browser back where it was going after sign-in, never to another host', async () => {
    for (const [next, expected] of [
      [`/scans/${big.id}?team_id=x`, `/scans/${big.id}?team_id=x`],
      ['//evil.example/', '/scans'],
      ['https://evil.example/', '/scans'],
      ['/\\evil.example', '/scans'],
    ] as const) {
      const browser = new Browser(served.url);
      const form = await browser.get(`/sign-in?next=${encodeURIComponent(next)}`);
      const answer = await browser.post('/sign-in', {
        csrf: hiddenField(form.body, 'csrf'),
        next: hiddenField(form.body, 'next'),
        key,
      });
      expect(answer.headers.get('location')).toBe(expected);
    }
  });

  it("shows a key only its own team's scans, and another team's scan exactly as an unknown one", async () => {
    const browser = await signedIn();
    const list = await browser.get('/scans');
    expect(list.body).not.toContain('partner secret scan');
    const foreign = await browser.get(`/scans/${othersScan.id}`);
    const unknown = await browser.get('/scans/aaaaaaaaaaaaaaaaaaaa');
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.replace(othersScan.id, 'ID')).toBe(
      unknown.body.replace('aaaaaaaaaaaaaaaaaaaa', 'ID'),
    );
    const [finding] = (await store.browse.page(othersScan.id, { filter: {}, sort: 'recorded', limit: 1 }))
      .findings;
    expect((await browser.get(`/findings/${finding?.id}`)).status).toBe(404);
    expect((await browser.get(`/compare?base=${big.id}&head=${othersScan.id}`)).status).toBe(404);
    const progress = await browser.get(`/scans/progress.json?ids=${othersScan.id},${big.id}`);
    expect(JSON.parse(progress.body).scans.map((s: { id: string }) => s.id)).toEqual([big.id]);
    const partner = await signedIn(otherKey);
    expect((await partner.get(`/scans/${othersScan.id}`)).status).toBe(200);
    expect((await partner.get(`/scans/${big.id}`)).status).toBe(404);
  });

  it("opens the scan nuclei links to (/scans/ID?team_id=…) only for the key's own team", async () => {
    const browser = await signedIn();
    const team = await store.teams.byName('default');
    expect((await browser.get(`/scans/${big.id}?team_id=${team?.id}`)).status).toBe(200);
    expect((await browser.get(`/scans/${big.id}?team_id=${othersScan.teamId}`)).status).toBe(404);
  });

  it.each(['recorded', 'severity', 'host', 'template'] as const)(
    'pages through every finding of a scan exactly once, sorted %s, with and without a filter',
    async (sort) => {
      const browser = await signedIn();
      for (const [filter, expected] of [
        ['', 130],
        ['&severity=high', 26],
        ['&host=h1.test', 43],
        ['&template=t2', 32],
      ] as const) {
        const seen: string[] = [];
        let path: string | undefined = `/scans/${big.id}?sort=${sort}${filter}`;
        while (path !== undefined) {
          const answer: Answer = await browser.get(path);
          expect(answer.status).toBe(200);
          seen.push(...[...answer.body.matchAll(/data-finding="([0-9a-v]{20})"/g)].map((m) => m[1] ?? ''));
          const next = /<a href="([^"]+)">Next →<\/a>/.exec(answer.body)?.[1];
          path = next?.replaceAll('&amp;', '&');
        }
        expect(seen).toHaveLength(expected);
        expect(new Set(seen).size).toBe(expected);
      }
    },
  );

  it('lists findings most severe first when sorted by severity', async () => {
    const browser = await signedIn();
    const answer = await browser.get(`/scans/${big.id}?sort=severity`);
    const shown = [...answer.body.matchAll(/class="badge sev-(\w+)"/g)].map((m) => m[1]);
    expect(shown.slice(0, 26).every((s) => s === 'critical')).toBe(true);
    expect(shown[26]).toBe('high');
  });

  it('counts new, fixed and unchanged findings between two scans by vuln hash', async () => {
    const browser = await signedIn();
    const answer = await browser.get(`/compare?base=${big.id}&head=${later.id}`);
    expect(answer.body).toContain('New (10)');
    expect(answer.body).toContain('Fixed (30)');
    expect(answer.body).toContain('Unchanged (100)');
  });

  it('refuses a bad parameter with a page that names it', async () => {
    const browser = await signedIn();
    for (const [path, name] of [
      ['/scans?offset=-1', 'offset'],
      ['/scans?status=done', 'status'],
      [`/scans/${big.id}?severity=urgent`, 'severity'],
      [`/scans/${big.id}?sort=random`, 'sort'],
      [`/scans/${big.id}?after=%%%`, 'after'],
      ['/compare?base=nope', 'base'],
    ] as const) {
      const answer = await browser.get(path);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
      expect(answer.body).toContain(`${name}:`);
    }
  });

  it('signs out only with the form token, and the old cookie opens nothing afterwards', async () => {
    const browser = await signedIn();
    const page = await browser.get('/scans');
    expect((await browser.post('/sign-out', { csrf: 'forged' })).status).toBe(403);
    expect((await browser.get('/scans')).status).toBe(200);
    const cookie = browser.cookie('keyhole_session');
    const out = await browser.post('/sign-out', { csrf: hiddenField(page.body, 'csrf') });
    expect(out.headers.get('location')).toBe('/sign-in');
    const replay = await fetch(`${served.url}/scans`, {
      redirect: 'manual',
      headers: { cookie: `keyhole_session=${cookie}` },
    });
    expect(replay.status).toBe(303);
  });

  it('ends the sessions of a key once it is revoked', async () => {
    const team = await store.teams.byName('default');
    const created = await store.keys.create({ teamId: team?.id ?? '', name: 'short-lived' });
    const browser = await signedIn(created.secret);
    expect((await browser.get('/scans')).status).toBe(200);
    await store.keys.revoke(created.key.id);
    expect((await browser.get('/scans')).status).toBe(303);
  });
});

describe.each(ENGINES)('triage in the dashboard on $engine', ({ create }) => {
  let served: ServedDashboard;
  let store: Store;
  let readKey: string;
  let writeKey: string;
  let writeKeyPrefix: string;
  let otherWriteKey: string;
  let findingIds: string[];
  let othersFindingId: string;

  beforeAll(async () => {
    served = await serveDashboard(await create());
    store = served.store;
    const team = await store.teams.ensure('default');
    const other = await store.teams.ensure('partners');
    readKey = (await store.keys.create({ teamId: team.id, name: 'reader' })).secret;
    const writer = await store.keys.create({ teamId: team.id, name: 'triager', scope: 'write' });
    writeKey = writer.secret;
    writeKeyPrefix = writer.key.prefix;
    otherWriteKey = (await store.keys.create({ teamId: other.id, name: 'partner', scope: 'write' })).secret;
    const scan = await uploadedScan(
      store,
      team.id,
      'triage scan',
      [1, 2, 3, 4].map((n) => resultEvent(n)),
    );
    findingIds = (await store.browse.page(scan.id, { filter: {}, sort: 'recorded', limit: 10 })).findings.map(
      (f) => f.id,
    );
    const othersScan = await uploadedScan(store, other.id, 'partner scan', [resultEvent(1)]);
    othersFindingId =
      (await store.browse.page(othersScan.id, { filter: {}, sort: 'recorded', limit: 1 })).findings[0]?.id ??
      '';
  });
  afterAll(() => served?.close());

  const signedIn = async (apiKey: string) => {
    const browser = new Browser(served.url);
    expect((await browser.signIn(apiKey)).status).toBe(303);
    return browser;
  };
  const statusOf = async (id: string, teamId?: string) =>
    (await store.findings.get(id, teamId ?? (await store.teams.byName('default'))?.id ?? ''))?.vulnStatus;

  it('lets a write key set a status from the finding page, then shows it with who changed it from what', async () => {
    const id = findingIds[0] ?? '';
    const browser = await signedIn(writeKey);
    const page = await browser.get(`/findings/${id}`);
    expect(page.body).toContain(`action="/findings/${id}/status"`);
    const answer = await browser.post(`/findings/${id}/status`, {
      csrf: hiddenField(page.body, 'csrf'),
      status: 'false_positive',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/findings/${id}`);
    expect(await statusOf(id)).toBe('false_positive');
    const after = await browser.get(`/findings/${id}`);
    expect(after.body).toContain('<span class="status">false_positive</span>');
    expect(after.body).toContain('triage: open → false_positive');
    expect(after.body).toContain(`key triager (${writeKeyPrefix}…)`);
    expect(after.body).toContain('found by the scan');
    await browser.post(`/findings/${id}/status`, { csrf: hiddenField(page.body, 'csrf'), status: 'fixed' });
    const twice = await browser.get(`/findings/${id}`);
    const rows = [...twice.body.matchAll(/<td>(triage: [^<]+)<\/td>/g)].map((m) => m[1]);
    expect(rows).toEqual(['triage: open → false_positive', 'triage: false_positive → fixed']);
  });

  it('shows a read key the status but no form, and refuses its post with 403, changing nothing', async () => {
    const id = findingIds[1] ?? '';
    const browser = await signedIn(readKey);
    const page = await browser.get(`/findings/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<span class="status">open</span>');
    expect(page.body).not.toContain('/status"');
    const answer = await browser.post(`/findings/${id}/status`, {
      csrf: hiddenField(page.body, 'csrf'),
      status: 'fixed',
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('may only read');
    expect(await statusOf(id)).toBe('open');
  });

  it('refuses a triage without the form token, with a wrong one, or sent from another site', async () => {
    const id = findingIds[2] ?? '';
    const browser = await signedIn(writeKey);
    const page = await browser.get(`/findings/${id}`);
    const csrf = hiddenField(page.body, 'csrf');
    expect((await browser.post(`/findings/${id}/status`, { status: 'fixed' })).status).toBe(403);
    expect((await browser.post(`/findings/${id}/status`, { csrf: `${csrf}x`, status: 'fixed' })).status).toBe(
      403,
    );
    const foreign = await browser.post(
      `/findings/${id}/status`,
      { csrf, status: 'fixed' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const elsewhere = await signedIn(writeKey);
    expect((await elsewhere.post(`/findings/${id}/status`, { csrf, status: 'fixed' })).status).toBe(403);
    expect(await statusOf(id)).toBe('open');
  });

  it('queues a retest only from a write key with the form token from this site, for its own team', async () => {
    const id = findingIds[3] ?? '';
    const teamId = (await store.teams.byName('default'))?.id ?? '';
    const requests = async () => (await store.retestRequests.ofFinding(id, teamId)).length;
    const reader = await signedIn(readKey);
    const readPage = await reader.get(`/findings/${id}`);
    expect(readPage.body).not.toContain('/retest"');
    const refused = await reader.post(`/findings/${id}/retest`, { csrf: hiddenField(readPage.body, 'csrf') });
    expect(refused.status).toBe(403);
    const writer = await signedIn(writeKey);
    const page = await writer.get(`/findings/${id}`);
    expect(page.body).toContain(`action="/findings/${id}/retest"`);
    const csrf = hiddenField(page.body, 'csrf');
    expect((await writer.post(`/findings/${id}/retest`, {})).status).toBe(403);
    const foreign = await writer.post(`/findings/${id}/retest`, { csrf }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await requests()).toBe(0);
    const answer = await writer.post(`/findings/${id}/retest`, { csrf });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/findings/${id}`);
    expect(await requests()).toBe(1);
    expect((await writer.get(`/findings/${id}`)).body).toContain('queued');
    expect((await writer.post('/findings/c00000000000000000a0/retest', { csrf })).status).toBe(404);
  });

  it('uploads an asset list from the assets page with a write key; a bad line stores nothing and is named', async () => {
    const teamId = (await store.teams.byName('default'))?.id ?? '';
    const named = async (name: string) =>
      (await store.assets.list(teamId, { offset: 0, limit: 100 })).filter((list) => list.name === name);
    const reader = await signedIn(readKey);
    const readPage = await reader.get('/assets');
    expect(readPage.body).not.toContain('action="/assets"');
    const refused = await reader.post('/assets', {
      csrf: hiddenField(readPage.body, 'csrf'),
      name: 'edge',
      targets: 'a.test\n',
    });
    expect(refused.status).toBe(403);
    const writer = await signedIn(writeKey);
    const page = await writer.get('/assets');
    expect(page.body).toContain('action="/assets"');
    const csrf = hiddenField(page.body, 'csrf');
    expect((await writer.post('/assets', { name: 'edge', targets: 'a.test\n' })).status).toBe(403);
    const bad = await writer.post('/assets', { csrf, name: 'edge', targets: 'a.test\nbad host\n' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('line 2');
    expect(await named('edge')).toEqual([]);
    const answer = await writer.post('/assets', {
      csrf,
      name: 'edge <b>hosts</b>',
      targets: '# edge\nhttps://a.test\nb.test:8443\nhttps://a.test\n',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/assets');
    const [list] = await named('edge <b>hosts</b>');
    expect(list?.assetCount).toBe(2);
    expect(await store.assets.targets(list?.id ?? '', teamId)).toEqual(['https://a.test', 'b.test:8443']);
    const after = await writer.get('/assets');
    expect(after.body).toContain('edge &lt;b');
    expect(after.body).not.toContain('<b>hosts');
  });

  it('sends a signed-out triage to the sign-in form, changing nothing', async () => {
    const id = findingIds[2] ?? '';
    const answer = await new Browser(served.url).post(`/findings/${id}/status`, {
      csrf: 'x',
      status: 'fixed',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toMatch(/^\/sign-in\?next=/);
    expect(await statusOf(id)).toBe('open');
  });

  it("answers a triage of another team's finding 404, exactly as an unknown one, and leaves it as it was", async () => {
    const browser = await signedIn(writeKey);
    const csrf = hiddenField((await browser.get('/scans')).body, 'csrf');
    const foreign = await browser.post(`/findings/${othersFindingId}/status`, { csrf, status: 'fixed' });
    const unknown = await browser.post('/findings/aaaaaaaaaaaaaaaaaaaa/status', { csrf, status: 'fixed' });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.replace(othersFindingId, 'ID')).toBe(
      unknown.body.replace('aaaaaaaaaaaaaaaaaaaa', 'ID'),
    );
    const partners = await store.teams.byName('partners');
    expect(await statusOf(othersFindingId, partners?.id)).toBe('open');
    const partner = await signedIn(otherWriteKey);
    const theirs = await partner.get(`/findings/${othersFindingId}`);
    expect(theirs.body).not.toContain('triage:');
  });

  it('refuses a status PD does not know, naming the parameter and the choices', async () => {
    const id = findingIds[3] ?? '';
    const browser = await signedIn(writeKey);
    const csrf = hiddenField((await browser.get(`/findings/${id}`)).body, 'csrf');
    for (const status of ['', 'closed']) {
      const answer = await browser.post(`/findings/${id}/status`, { csrf, status });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('status:');
      expect(answer.body).toContain('false_positive');
    }
    expect(await statusOf(id)).toBe('open');
  });
});

describe('sessions', () => {
  it('expire after 12 hours idle and 7 days after sign-in however used, and an expired id opens nothing', () => {
    let now = 0;
    const sessions = new Sessions(undefined, () => now);
    const principal = { keyId: 'k', teamId: 't', scope: 'read' } as const;
    const { id } = sessions.open(principal);
    now = 11 * 3_600_000;
    expect(sessions.find(id)?.principal).toEqual(principal);
    now += 12 * 3_600_000 + 1;
    expect(sessions.find(id)).toBeUndefined();
    const kept = sessions.open(principal).id;
    for (let step = 0; step < 16; step++) {
      now += 11 * 3_600_000;
      sessions.find(kept);
    }
    expect(sessions.find(kept)).toBeUndefined();
  });

  it('keep no session under the id the cookie carries', () => {
    const sessions = new Sessions();
    const { id, session } = sessions.open({ keyId: 'k', teamId: 't', scope: 'read' });
    expect(
      JSON.stringify([...(sessions as unknown as { byHash: Map<string, unknown> }).byHash.keys()]),
    ).not.toContain(id);
    expect(session.csrfToken).not.toBe(id);
  });
});
