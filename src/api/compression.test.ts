import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import { GZIP_MIN_BYTES } from './encoding.js';
import { type RawResponse, type RunningApi, type ServedDatabase, serveDatabase } from './testing/serve.js';

const GZIP = { 'accept-encoding': 'gzip' };

describe.each(ENGINES)('compressed pages on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    const teamId = (await store.teams.ensure('default')).id;
    key = (await store.keys.create({ teamId, name: 'gzip' })).secret;
    for (let i = 0; i < 20; i++) await store.scans.create({ teamId, name: `nightly scan ${i}` });
  });
  afterAll(() => served?.close());

  const get = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    api.raw(path, { 'x-api-key': key, ...headers }, method);

  /** The page twice in a row with the same headers, the second from the cache. */
  async function servedTwice(path: string, headers: Record<string, string>): Promise<RawResponse[]> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pair = [await get(path, headers), await get(path, headers)];
      if (pair[1]?.headers['x-cache'] === 'hit') return pair;
    }
    throw new Error(`${path} was never served from the cache`);
  }

  it('sends gzip bytes that gunzip to exactly the identity page when the client accepts gzip', async () => {
    const identity = await get('/v1/scans');
    const gzipped = await get('/v1/scans', GZIP);
    expect(identity.body.length).toBeGreaterThan(GZIP_MIN_BYTES);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toBe(identity.headers['content-type']);
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
    expect(gzipped.body.length).toBeLessThan(identity.body.length / 3);
    expect(gunzipSync(gzipped.body).equals(identity.body)).toBe(true);
    expect(JSON.parse(identity.body.toString('utf8')).data).toHaveLength(20);
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['gzip;q=0', { 'accept-encoding': 'gzip;q=0' }],
    ['*;q=1, gzip;q=0', { 'accept-encoding': '*;q=1, gzip;q=0' }],
    ['identity', { 'accept-encoding': 'identity' }],
    ['br only', { 'accept-encoding': 'br' }],
  ])('sends the identity page for %s, with Vary: Accept-Encoding', async (_label, headers) => {
    const response = await get('/v1/scans?limit=50', headers);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    expect(JSON.parse(response.body.toString('utf8')).data).toHaveLength(20);
  });

  it.each([
    ['*', '*'],
    ['GZIP in capitals', 'GZIP'],
    ['a weighted list', 'br;q=1.0, gzip;q=0.5, deflate'],
  ])('sends gzip for %s', async (_label, accept) => {
    const response = await get('/v1/scans?limit=60', { 'accept-encoding': accept });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(response.body).toString('utf8')).data).toHaveLength(20);
  });

  it('serves the same compressed bytes again from the cache', async () => {
    const [first, again] = await servedTwice('/v1/scans?limit=70', GZIP);
    expect(again?.headers['content-encoding']).toBe('gzip');
    expect(again?.headers['content-length']).toBe(first?.headers['content-length']);
    expect(again?.body.equals(first?.body ?? Buffer.alloc(0))).toBe(true);
  });

  it('answers HEAD with the headers and length of GET for each encoding, and no body', async () => {
    for (const headers of [{}, GZIP]) {
      const [full] = await servedTwice('/v1/scans?limit=80', headers);
      const head = await get('/v1/scans?limit=80', headers, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-length']).toBe(String(full?.body.length));
      expect(head.headers['content-encoding']).toBe(full?.headers['content-encoding']);
      expect(head.headers.vary).toBe(full?.headers.vary);
    }
  });

  it('sends a page under a kilobyte uncompressed even when gzip is accepted', async () => {
    const response = await get('/v1/assets', GZIP);
    expect(response.body.length).toBeLessThan(GZIP_MIN_BYTES);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(response.body.toString('utf8'))).toEqual({
      message: 'Successfully retrieved assets',
      data: [],
    });
  });

  it('sends error bodies uncompressed', async () => {
    const response = await api.raw('/v1/scans?limit=5000', { 'x-api-key': key, ...GZIP });
    expect(response.status).toBe(400);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(response.body.toString('utf8')).code).toBe('invalid_parameter');
  });
});

describe.each(ENGINES)('pages without the cache on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;

  beforeAll(async () => {
    served = await serveDatabase(await create(), { cache: false });
    ({ store, api } = served);
  });
  afterAll(() => served?.close());

  it('are sent as identity whatever the client accepts', async () => {
    const teamId = (await store.teams.ensure('default')).id;
    const key = (await store.keys.create({ teamId, name: 'plain' })).secret;
    for (let i = 0; i < 5; i++) await store.scans.create({ teamId, name: `scan ${i}` });
    const response = await api.raw('/v1/scans', { 'x-api-key': key, ...GZIP });
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(response.body.toString('utf8')).data).toHaveLength(5);
  });

  it('are sent as JSON, whole, with the length of their bytes', async () => {
    const teamId = (await store.teams.ensure('bytes')).id;
    const key = (await store.keys.create({ teamId, name: 'bytes' })).secret;
    const scan = await store.scans.create({ teamId, name: 'Zahlungsdienst-Über 東京 🙂' });
    await store.findings.add(scan.id, {
      'template-id': 'käse',
      info: { name: 'Käse "x"', author: ['a'], tags: [], severity: 'high', description: 'ünïcödé 🙂' },
      type: 'http',
      host: 'https://über.test',
      'matched-at': 'https://über.test/',
      timestamp: '2024-03-14T10:21:36Z',
      'matcher-status': true,
    });
    for (const [path, names] of [
      ['/v1/scans', (body: { data: { name: string }[] }) => body.data.map((s) => s.name)],
      [
        '/v1/scans/results',
        (body: { data: { description: string }[] }) => body.data.map((f) => f.description),
      ],
    ] as const) {
      const response = await api.raw(path, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
      expect(names(JSON.parse(response.body.toString('utf8')))).toEqual(
        path === '/v1/scans' ? ['Zahlungsdienst-Über 東京 🙂'] : ['ünïcödé 🙂'],
      );
    }
  });
});
