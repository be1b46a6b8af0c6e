import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store, Team } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import { Browser, hiddenField, type ServedDashboard, serveDashboard } from './testing/serve.js';

describe.each(ENGINES)('the keys page on $engine', ({ create }) => {
  let logs = '';
  let served: ServedDashboard;
  let store: Store;
  let team: Team;
  let other: Team;
  let readKey: string;
  let writeKey: string;
  let partnerKeyId: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    });
    served = await serveDashboard(await create(), { logger: pino({ level: 'trace' }, sink) });
    store = served.store;
    team = await store.teams.ensure('default');
    other = await store.teams.ensure('partners');
    readKey = (await store.keys.create({ teamId: team.id, name: 'reader' })).secret;
    writeKey = (await store.keys.create({ teamId: team.id, name: 'admin', scope: 'write' })).secret;
    partnerKeyId = (await store.keys.create({ teamId: other.id, name: 'partner ci', scope: 'write' })).key.id;
  });
  afterAll(() => served?.close());

  const signedIn = async (apiKey: string) => {
    const browser = new Browser(served.url);
    expect((await browser.signIn(apiKey)).status).toBe(303);
    return browser;
  };
  const csrfOf = async (browser: Browser) => hiddenField((await browser.get('/scans')).body, 'csrf');

  it('is refused to a read key, which is shown no link to it and cannot create a key', async () => {
    const browser = await signedIn(readKey);
    expect((await browser.get('/scans')).body).not.toContain('href="/keys"');
    const page = await browser.get('/keys');
    expect(page.status).toBe(403);
    expect(page.body).toContain('may only read');
    const before = (await store.keys.list()).length;
    const answer = await browser.post('/keys', {
      csrf: await csrfOf(browser),
      name: 'sneaky',
      scope: 'write',
    });
    expect(answer.status).toBe(403);
    expect((await store.keys.list()).length).toBe(before);
  });

  it("lists only the team's own keys with name, prefix, scope and dates", async () => {
    const browser = await signedIn(writeKey);
    expect((await browser.get('/scans')).body).toContain('href="/keys"');
    const page = await browser.get('/keys');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    for (const key of (await store.keys.list()).filter((k) => k.teamId === team.id)) {
      expect(page.body).toContain(`data-key="${key.id}"`);
      expect(page.body).toContain(`<code>${key.prefix}…</code>`);
    }
    expect(page.body).toContain('admin<span class="muted"> (this session)</span>');
    expect(page.body).not.toContain('partner ci');
    expect(page.body).not.toContain(partnerKeyId);
  });

  it('creates a key and shows its secret once: on the answer to the form, never in a link or afterwards', async () => {
    const browser = await signedIn(writeKey);
    const answer = await browser.post('/keys', {
      csrf: await csrfOf(browser),
      name: 'nightly ci',
      scope: 'write',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const secret = /<code class="new-key">(kh_[A-Za-z0-9_-]{43})<\/code>/.exec(answer.body)?.[1] ?? '';
    expect(await store.keys.authenticate(secret)).toMatchObject({ teamId: team.id, scope: 'write' });
    expect(answer.body.split(secret)).toHaveLength(2);
    expect(answer.headers.get('location')).toBeNull();
    expect([...answer.body.matchAll(/(?:href|action)="([^"]*)"/g)].join(' ')).not.toContain(secret);
    const later = await browser.get('/keys');
    expect(later.body).toContain('nightly ci');
    expect(later.body).not.toContain(secret);
    expect((await signedIn(secret).then((b) => b.get('/keys'))).status).toBe(200);
    expect(logs).toContain('/keys');
    expect(logs).not.toContain(secret.slice(3));
  });

  it('refuses to create a key without the form token, with a wrong one, or with a bad name or scope', async () => {
    const browser = await signedIn(writeKey);
    const csrf = await csrfOf(browser);
    const before = (await store.keys.list()).length;
    expect((await browser.post('/keys', { name: 'x', scope: 'read' })).status).toBe(403);
    expect((await browser.post('/keys', { csrf: `${csrf}x`, name: 'x', scope: 'read' })).status).toBe(403);
    for (const [form, name] of [
      [{ name: '  ', scope: 'read' }, 'name'],
      [{ name: 'y'.repeat(101), scope: 'read' }, 'name'],
      [{ name: 'x', scope: 'admin' }, 'scope'],
      [{ name: 'x' }, 'scope'],
    ] as const) {
      const answer = await browser.post('/keys', { csrf, ...form });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain(`${name}:`);
    }
    expect((await store.keys.list()).length).toBe(before);
  });

  it('revokes a key of the team with the form token, and that key opens nothing afterwards', async () => {
    const doomed = await store.keys.create({ teamId: team.id, name: 'old ci', scope: 'read' });
    const victim = await signedIn(doomed.secret);
    const browser = await signedIn(writeKey);
    const csrf = await csrfOf(browser);
    expect((await browser.post(`/keys/${doomed.key.id}/revoke`, {})).status).toBe(403);
    expect((await browser.post(`/keys/${doomed.key.id}/revoke`, { csrf: 'forged' })).status).toBe(403);
    expect((await store.keys.get(doomed.key.id))?.revokedAt).toBeNull();
    const answer = await browser.post(`/keys/${doomed.key.id}/revoke`, { csrf });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/keys');
    expect(await store.keys.authenticate(doomed.secret)).toBeUndefined();
    expect((await victim.get('/scans')).status).toBe(303);
    const row = /<tr data-key="[^"]+">(?:(?!<\/tr>).)*old ci(?:(?!<\/tr>).)*<\/tr>/s.exec(
      (await browser.get('/keys')).body,
    )?.[0];
    expect(row).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d<\/td><\/tr>$/);
    expect(row).not.toContain('Revoke');
  });

  it("answers a revoke of another team's key 404, as an unknown one, and leaves it working", async () => {
    const browser = await signedIn(writeKey);
    const csrf = await csrfOf(browser);
    const foreign = await browser.post(`/keys/${partnerKeyId}/revoke`, { csrf });
    const unknown = await browser.post('/keys/aaaaaaaaaaaaaaaaaaaa/revoke', { csrf });
    expect(foreign.status).toBe(404);
    expect(foreign.body.replace(partnerKeyId, 'ID')).toBe(unknown.body.replace('aaaaaaaaaaaaaaaaaaaa', 'ID'));
    expect((await store.keys.get(partnerKeyId))?.revokedAt).toBeNull();
  });

  it('ends the session whose own key it revokes', async () => {
    const own = await store.keys.create({ teamId: team.id, name: 'short-lived admin', scope: 'write' });
    const browser = await signedIn(own.secret);
    const cookie = browser.cookie('keyhole_session');
    const answer = await browser.post(`/keys/${own.key.id}/revoke`, { csrf: await csrfOf(browser) });
    expect(answer.status).toBe(303);
    const next = await browser.get('/keys');
    expect(next.status).toBe(303);
    expect(next.headers.get('location')).toMatch(/^\/sign-in/);
    const replay = await fetch(`${served.url}/scans`, {
      redirect: 'manual',
      headers: { cookie: `keyhole_session=${cookie}` },
    });
    expect(replay.status).toBe(303);
  });
});
