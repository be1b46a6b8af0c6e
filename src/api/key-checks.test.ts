import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import { KeyChecks } from './key-checks.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from './testing/serve.js';

describe('KeyChecks', () => {
  it('remembers a check, refusals too, while the token stays the same', () => {
    const checks = new KeyChecks<string>();
    checks.observe('t1');
    checks.remember('t1', 'a', 'team a');
    checks.remember('t1', 'b', null);
    expect([checks.get('a'), checks.get('b'), checks.get('c')]).toEqual(['team a', null, undefined]);
  });

  it('forgets every check when the token moves', () => {
    const checks = new KeyChecks<string>();
    checks.observe('t1');
    checks.remember('t1', 'a', 'team a');
    checks.observe('t2');
    expect(checks.get('a')).toBeUndefined();
  });

  it('keeps nothing checked under a token the store has moved on from', () => {
    const checks = new KeyChecks<string>();
    checks.observe('t2');
    checks.remember('t1', 'a', 'team a');
    expect(checks.get('a')).toBeUndefined();
  });

  it('remembers at most its limit of keys', () => {
    const checks = new KeyChecks<string>(2);
    checks.observe('t1');
    for (const key of ['a', 'b', 'c']) checks.remember('t1', key, key);
    expect([checks.get('a'), checks.get('b'), checks.get('c')]).toEqual(['a', 'b', undefined]);
  });
});

describe.each(ENGINES)('key checks without the page cache on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;

  beforeAll(async () => {
    served = await serveDatabase(await create(), { cache: false });
    ({ store, api } = served);
  });
  afterAll(() => served?.close());

  it('refuses a key on the first request after it is revoked', async () => {
    const teamId = (await store.teams.ensure('default')).id;
    const { key, secret } = await store.keys.create({ teamId, name: 'soon revoked' });
    for (let i = 0; i < 3; i++) expect((await api.get('/v1/scans', secret)).status).toBe(200);
    await store.keys.revoke(key.id);
    expect(await api.get('/v1/scans', secret)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });

  it('accepts a key on the first request after it is created, though refused just before', async () => {
    const teamId = (await store.teams.ensure('default')).id;
    const other = `kh_${'B'.repeat(43)}`;
    expect((await api.get('/v1/scans', other)).status).toBe(401);
    const { secret } = await store.keys.create({ teamId, name: 'new' });
    expect((await api.get('/v1/scans', secret)).status).toBe(200);
    expect((await api.get('/v1/scans', other)).status).toBe(401);
  });
});
