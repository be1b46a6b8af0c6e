import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { TcpProxy } from '../store/testing/proxy.js';
import { type RunningApi, serveApi } from './testing/serve.js';

describe('the API while PostgreSQL is unreachable', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let store: Store;
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    const server = new URL(database.location.url);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    server.host = `127.0.0.1:${proxy.port}`;
    store = await openStore({ engine: 'postgres', url: server.toString() });
    const team = await store.teams.ensure('default');
    key = (await store.keys.create({ teamId: team.id, name: 'ops' })).secret;
    api = await serveApi(store);
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 with a JSON body, then recovers when the database is back', async () => {
    // Each listing's connections opened before the cut, to be cut with it.
    const pages = ['/v1/scans', '/v1/retest?offset=0&limit=5', '/v1/scans/results?limit=5'];
    for (const path of pages) expect((await api.get(path, key)).status).toBe(200);

    proxy.cutOff();
    for (const path of [...pages, '/v1/assets', '/v1/scans/results?search=x', '/healthz']) {
      const response = await api.get(path, key);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.body).toEqual({
        message: expect.stringContaining('unreachable'),
        code: 'store_unavailable',
      });
    }

    proxy.restore();
    for (const path of pages) expect((await api.get(path, key)).status).toBe(200);
    expect((await api.get('/healthz')).body).toEqual({ status: 'ok' });
  });
});
