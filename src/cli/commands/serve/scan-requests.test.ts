/**
 * Scans started through the API and the dashboard's Rescan button, run for real against a loopback
 * target: by `keyhole serve` itself on SQLite, by `keyhole worker` on PostgreSQL.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, hiddenField } from '../../../dashboard/testing/serve.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';
import { ENGINES, type TestDatabase } from '../../../store/testing/databases.js';
import { background, until } from './testing/background.js';

const SECRET = 's3cr3t-value-9d1e';

describe.each(ENGINES)('scans started through the API on $engine', ({ engine, create }) => {
  let host: TestHost;
  let ws: Workspace;
  let database: TestDatabase;
  let store: Store;
  let writeKey: string;
  let readKey: string;
  let otherAsset: string;
  let apiUrl: string;
  let db: string;
  let serve: ReturnType<typeof background>;
  let worker: ReturnType<typeof background> | undefined;

  beforeAll(async () => {
    host = await startHost('127.0.0.1', (request) => {
      if (request.path === '/found') return { body: 'ok found' };
      if (request.path === '/secured' && request.headers['x-api-key'] === SECRET)
        return { body: 'ok secured' };
      return { status: 404, body: 'nothing here' };
    });
    ws = new Workspace();
    mkdirSync(join(ws.dir, 'templates', 'web'), { recursive: true });
    mkdirSync(join(ws.dir, 'templates', 'auth'), { recursive: true });
    ws.file('templates/auth/secured.yaml', pathsTemplate('secured', ['{{BaseURL}}/secured']));
    ws.file('templates/web/found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    ws.file('templates/web/missing.yaml', pathsTemplate('missing', ['{{BaseURL}}/missing']));
    mkdirSync(join(ws.dir, 'templates', 'tagged'), { recursive: true });
    ws.file(
      'templates/tagged/tagged.yaml',
      pathsTemplate('tagged', ['{{BaseURL}}/found']).replace(
        '  severity: info',
        '  severity: info\n  tags: exposure,demo',
      ),
    );
    symlinkSync(ws.dir, join(ws.dir, 'templates', 'escape'));
    ws.file('outside.yaml', pathsTemplate('outside', ['{{BaseURL}}/found']));
    ws.file(
      'secrets.yaml',
      `static:\n  - type: header\n    domains: ["${host.authority}"]\n    headers: [{key: X-Api-Key, value: ${SECRET}}]\n`,
    );
    database = await create();
    db = database.location.engine === 'sqlite' ? database.location.path : database.location.url;
    expect((await ws.cli(['db', 'migrate', '--db', db])).code).toBe(0);
    store = await openStore(database.location);
    const team = await store.teams.ensure('default');
    const other = await store.teams.ensure('partner');
    otherAsset = (await store.assets.create({ teamId: other.id, name: 'theirs', targets: [host.origin] })).id;
    writeKey = (await store.keys.create({ teamId: team.id, name: 'ci', scope: 'write' })).secret;
    readKey = (await store.keys.create({ teamId: team.id, name: 'viewer' })).secret;
    serve = background(ws, [
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--templates-dir',
      'templates',
      '--secrets',
      'secrets.yaml',
    ]);
    apiUrl = await until(async () => /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(serve.io.out())?.[1]);
    if (engine === 'postgres') worker = background(ws, ['worker', '--db', db, '--poll', '0.05']);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await serve?.stop();
    await store?.close();
    await database?.drop();
    await host?.close();
    ws?.remove();
  });

  const start = (body: unknown, key = writeKey) =>
    fetch(`${apiUrl}/v1/scans`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = async (path: string) =>
    (await (await fetch(`${apiUrl}${path}`, { headers: { 'X-Api-Key': readKey } })).json()) as Record<
      string,
      unknown
    >;
  const ended = (id: string) =>
    until(async () => {
      const scan = await get(`/v1/scans/${id}`);
      return scan.status === 'finished' || scan.status === 'failed' ? scan : undefined;
    });

  it('runs a scan asked for with targets and template paths, its findings listed by the API', async () => {
    const response = await start({ name: 'from the API', targets: [host.origin], templates: ['web'] });
    const body = (await response.json()) as { id: string; message: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.id).toMatch(/^[0-9a-v]{20}$/);
    expect((await ended(body.id)).status).toBe('finished');
    const listed = (await get('/v1/scans?limit=10')) as {
      data: { scan_id?: string; id?: string; name: string }[];
    };
    expect(JSON.stringify(listed)).toContain(body.id);
    const results = (await get(`/v1/scans/result/${body.id}?limit=10`)) as {
      data: { template_id: string }[];
    };
    expect(results.data.map((r) => r.template_id)).toEqual(['found']);
  });

  it('chooses templates by ids and tags as keyhole scan does', async () => {
    for (const [choice, expected] of [
      [{ template_ids: ['found'] }, ['found']],
      [{ tags: ['exposure'] }, ['tagged']],
    ] as const) {
      const response = await start({ targets: [host.origin], ...choice });
      const body = (await response.json()) as { id: string };
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect((await ended(body.id)).status).toBe('finished');
      const results = (await get(`/v1/scans/result/${body.id}?limit=10`)) as {
        data: { template_id: string }[];
      };
      expect(results.data.map((r) => r.template_id)).toEqual(expected);
    }
  });

  it('runs a scan naming a secret file with its secret, by a runner that has the file', async () => {
    const response = await start({
      targets: [host.origin],
      templates: ['auth'],
      secret_file: 'secrets.yaml',
    });
    const body = (await response.json()) as { id: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    let runner: ReturnType<typeof background> | undefined;
    if (engine === 'postgres') {
      // The worker without secret files leaves it queued; one with the file runs it.
      await sleep(1500);
      expect((await get(`/v1/scans/${body.id}`)).status).toBe('queued');
      runner = background(ws, ['worker', '--db', db, '--poll', '0.05', '-sf', 'secrets.yaml']);
    }
    try {
      expect((await ended(body.id)).status).toBe('finished');
    } finally {
      await runner?.stop();
    }
    const results = (await get(`/v1/scans/result/${body.id}?limit=10`)) as {
      data: { template_id: string }[];
    };
    expect(results.data.map((r) => r.template_id)).toEqual(['secured']);
    expect(serve.io.out()).not.toContain(SECRET);
    expect(JSON.stringify(results)).not.toContain(SECRET);
  });

  it('answers a read key 403 and bad parameters 400 naming them, starting nothing', async () => {
    const before = await store.scans.list((await store.teams.ensure('default')).id, {
      offset: 0,
      limit: 100,
    });
    expect((await start({ targets: [host.origin], templates: ['web'] }, readKey)).status).toBe(403);
    const refused = async (body: unknown, param: string) => {
      const response = await start(body);
      const answer = (await response.json()) as { message: string; param?: string };
      expect(response.status, JSON.stringify(answer)).toBe(400);
      expect(answer.message).toContain(param);
      return answer.message;
    };
    expect(await refused({ targets: [host.origin], templates: ['../outside.yaml'] }, 'templates')).toContain(
      'outside the templates folder',
    );
    await refused({ targets: [host.origin], templates: [`${ws.dir}/outside.yaml`] }, 'templates');
    expect(
      await refused({ targets: [host.origin], templates: ['escape/outside.yaml'] }, 'templates'),
    ).toContain('outside the templates folder');
    await refused({ targets: [host.origin], templates: ['web/*.yaml'] }, 'templates');
    await refused({ targets: [host.origin], templates: ['nope.yaml'] }, 'templates');
    await refused({ targets: [host.origin] }, 'templates');
    await refused({ targets: [host.origin], tags: ['../x'] }, 'tags');
    await refused({ targets: [host.origin], templates: ['web'], secret_file: '/etc/passwd' }, 'secret_file');
    await refused({ targets: ['not a target'], templates: ['web'] }, 'targets');
    await refused({ templates: ['web'] }, 'targets');
    await refused({ targets: 'x', templates: ['web'] }, 'targets');
    await refused({ targets: [host.origin], templates: ['web'], secrets: { a: 1 } }, 'secrets');
    const theirs = await start({ asset_id: otherAsset, templates: ['web'] });
    expect(theirs.status).toBe(404);
    const after = await store.scans.list((await store.teams.ensure('default')).id, { offset: 0, limit: 100 });
    expect(after.length).toBe(before.length);
  });

  it('starts the same scan again from the dashboard’s Rescan button', async () => {
    const team = await store.teams.ensure('default');
    const asset = await store.assets.create({ teamId: team.id, name: 'ours', targets: [host.origin] });
    const first = (await (await start({ asset_id: asset.id, templates: ['web/found.yaml'] })).json()) as {
      id: string;
    };
    expect((await ended(first.id)).status).toBe('finished');
    const browser = new Browser(apiUrl);
    expect((await browser.signIn(writeKey)).status).toBe(303);
    const page = await browser.get(`/scans/${first.id}`);
    expect(page.body).toContain('Rescan');
    expect((await browser.post(`/scans/${first.id}/rescan`, { csrf: 'forged' })).status).toBe(403);
    const answer = await browser.post(`/scans/${first.id}/rescan`, { csrf: hiddenField(page.body, 'csrf') });
    expect(answer.status).toBe(303);
    const again = /^\/scans\/([0-9a-v]{20})$/.exec(answer.headers.get('location') ?? '')?.[1] ?? '';
    expect(again).not.toBe(first.id);
    expect((await ended(again)).status).toBe('finished');
    const rescan = await store.scans.get(again, team.id);
    expect(rescan?.rescanOf).toBe(first.id);
    expect(await store.scans.targets(again)).toEqual([host.origin]);
    const results = (await get(`/v1/scans/result/${again}?limit=10`)) as { data: { template_id: string }[] };
    expect(results.data.map((r) => r.template_id)).toEqual(['found']);
    const partner = await store.teams.ensure('partner');
    const theirs = await store.scans.create({ teamId: partner.id, name: 'theirs', targets: [host.origin] });
    const forged = await browser.post(`/scans/${theirs.id}/rescan`, { csrf: hiddenField(page.body, 'csrf') });
    expect(forged.status).toBe(404);
    const reader = new Browser(apiUrl);
    await reader.signIn(readKey);
    expect((await reader.get(`/scans/${first.id}`)).body).not.toContain('Rescan');
  });
});
