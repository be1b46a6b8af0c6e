/**
 * A retest asked for through the API, run for real against a loopback target: by `keyhole serve`
 * itself on SQLite, by `keyhole worker` on PostgreSQL. The finding found by a real scan moves to
 * fixed when the target stops answering, and back to open when it answers again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { describeLocation, openStore, type Store } from '../../../store/index.js';
import { ENGINES, type TestDatabase } from '../../../store/testing/databases.js';
import { background, until } from './testing/background.js';

const SECRET = 'retest-secret-41c9';

describe.each(ENGINES)('retests asked for through the API on $engine', ({ engine, create }) => {
  let host: TestHost;
  let ws: Workspace;
  let database: TestDatabase;
  let store: Store;
  let db: string;
  let vulnId: string;
  let securedId: string;
  let writeKey: string;
  let readKey: string;
  let apiUrl: string;
  let serve: ReturnType<typeof background>;
  let worker: ReturnType<typeof background> | undefined;
  let fixed = false;

  beforeAll(async () => {
    host = await startHost('127.0.0.1', (request) => {
      if (request.path === '/found' && !fixed) return { body: 'ok found' };
      if (request.path === '/secured' && request.headers['x-api-key'] === SECRET)
        return { body: 'ok secured' };
      return { status: 404, body: 'nothing here' };
    });
    ws = new Workspace();
    ws.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
    ws.file('secured.yaml', pathsTemplate('secured', ['{{BaseURL}}/secured']));
    ws.file(
      'secrets.yaml',
      `static:\n  - type: header\n    domains: ["${host.authority}"]\n    headers: [{key: X-Api-Key, value: ${SECRET}}]\n`,
    );
    database = await create();
    db = database.location.engine === 'sqlite' ? database.location.path : database.location.url;
    // One scan without secrets, one with (its finding's request shows the redacted secret).
    const plain = await ws.cli(['scan', '--db', db, '-u', host.origin, '-t', 'found.yaml', '-silent']);
    expect(plain.code, plain.err).toBe(0);
    const secured = await ws.cli([
      'scan',
      '--db',
      db,
      '-u',
      host.origin,
      '-t',
      'secured.yaml',
      '-silent',
      '-sf',
      'secrets.yaml',
    ]);
    expect(secured.code, secured.err).toBe(0);
    store = await openStore(database.location);
    const team = await store.teams.ensure('default');
    const byTemplate = new Map<string, string>();
    for (const scan of await store.scans.list(team.id, { offset: 0, limit: 2 }))
      for await (const f of store.findings.allOfScan(scan.id)) byTemplate.set(f.templateId, f.id);
    vulnId = byTemplate.get('found') ?? '';
    securedId = byTemplate.get('secured') ?? '';
    writeKey = (await store.keys.create({ teamId: team.id, name: 'ci', scope: 'write' })).secret;
    readKey = (await store.keys.create({ teamId: team.id, name: 'viewer' })).secret;
    serve = background(ws, ['serve', '--db', db, '--port', '0']);
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

  const post = (id: string, key = writeKey) =>
    fetch(`${apiUrl}/v1/scans/${id}/retest`, { method: 'POST', headers: { 'X-Api-Key': key } });
  const follow = async (requestId: string) => {
    const response = await fetch(`${apiUrl}/v1/retest/requests/${requestId}`, {
      headers: { 'X-Api-Key': readKey },
    });
    return (await response.json()) as { status: string; retest_id?: string; error?: string };
  };
  const retest = async (id: string) => {
    const response = await post(id);
    expect(response.status).toBe(200);
    const queued = (await response.json()) as { request_id: string; status: string };
    expect(queued.status).toBe('queued');
    return until(async () => {
      const now = await follow(queued.request_id);
      return now.status === 'done' || now.status === 'failed' ? now : undefined;
    });
  };

  it('runs a queued retest for real: fixed when the target stops matching, open again when it matches', async () => {
    expect(vulnId).toMatch(/^[0-9a-v]{20}$/);
    fixed = true;
    const first = await retest(vulnId);
    expect(first).toMatchObject({ status: 'done', retest_id: expect.any(String) });
    expect((await store.findings.get(vulnId))?.vulnStatus).toBe('fixed');
    fixed = false;
    const second = await retest(vulnId);
    expect(second.status).toBe('done');
    expect((await store.findings.get(vulnId))?.vulnStatus).toBe('open');
    const listed = await fetch(`${apiUrl}/v1/retest?offset=0&limit=10`, {
      headers: { 'X-Api-Key': readKey },
    });
    const results = ((await listed.json()) as { results: { vuln_id: string; matcher_status: boolean }[] })
      .results;
    expect(results.filter((r) => r.vuln_id === vulnId).map((r) => r.matcher_status)).toEqual([true, false]);
  });

  it('answers a read key 403 and an unknown finding 404, queueing nothing', async () => {
    expect((await post(vulnId, readKey)).status).toBe(403);
    expect((await post('c00000000000000000a0')).status).toBe(404);
    expect(
      await store.retestRequests.ofFinding(vulnId, (await store.teams.ensure('default')).id),
    ).toHaveLength(2);
  });

  it('keeps a finding found with a secret waiting for a runner with secret files, never retesting it without', async () => {
    expect(securedId).toMatch(/^[0-9a-v]{20}$/);
    const response = await post(securedId);
    const queued = (await response.json()) as { request_id: string };
    await sleep(1500);
    expect((await follow(queued.request_id)).status).toBe('queued');
    expect((await store.findings.get(securedId))?.vulnStatus).toBe('open');
    // A runner with the secret file takes it.
    const runner =
      engine === 'postgres'
        ? background(ws, ['worker', '--db', db, '--poll', '0.05', '-sf', 'secrets.yaml'])
        : background(ws, ['serve', '--db', db, '--port', '0', '--secrets', 'secrets.yaml']);
    try {
      const done = await until(async () => {
        const now = await follow(queued.request_id);
        return now.status === 'done' ? now : undefined;
      });
      expect(done.retest_id).toEqual(expect.any(String));
      expect((await store.findings.get(securedId))?.vulnStatus).toBe('open');
    } finally {
      await runner.stop();
    }
    expect(serve.io.out()).not.toContain(SECRET);
    expect(describeLocation(store.location)).not.toContain(SECRET);
  });
});
