import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { ErrorBody } from '../schemas.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../testing/serve.js';
import { UserResponse } from './user-schemas.js';

describe.each(ENGINES)('GET /v1/user on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
  });
  afterAll(() => served?.close());

  it('answers a valid key with its name and team, in the documented shape', async () => {
    const team = await store.teams.ensure('red');
    const { key, secret } = await store.keys.create({ teamId: team.id, name: 'ci-uploader' });
    const response = await api.get('/v1/user?utm_source=nuclei', secret);
    expect(response.status).toBe(200);
    expect(Value.Check(UserResponse, response.body)).toBe(true);
    expect(response.body).toEqual({
      message: 'Successfully retrieved user profile',
      name: 'ci-uploader',
      team_id: team.id,
      team_name: 'red',
      key_id: key.id,
      key_prefix: key.prefix,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(JSON.stringify(response.body)).not.toContain(secret);
  });

  it('names each key by its own team when several teams have keys', async () => {
    const teams = await Promise.all(['alpha', 'beta', 'gamma'].map((name) => store.teams.ensure(name)));
    const keys = await Promise.all(
      teams.map((team) => store.keys.create({ teamId: team.id, name: `key of ${team.name}` })),
    );
    for (const [i, { secret }] of keys.entries()) {
      const response = await api.get('/v1/user', secret);
      expect(response.body).toMatchObject({ team_id: teams[i]?.id, team_name: teams[i]?.name });
    }
  });

  it('answers 401 without a key, with an unknown key and with a revoked key', async () => {
    const team = await store.teams.ensure('red');
    const { key, secret } = await store.keys.create({ teamId: team.id, name: 'soon revoked' });
    await store.keys.revoke(key.id);
    for (const presented of [undefined, `kh_${'A'.repeat(43)}`, 'not-a-key', secret]) {
      const response = await api.get('/v1/user', presented);
      expect(response.status).toBe(401);
      expect(Value.Check(ErrorBody, response.body)).toBe(true);
      expect(response.body.code).toBe('unauthorized');
    }
  });

  it('is described in /openapi.json', async () => {
    const spec = (await api.get('/openapi.json')).body;
    expect(spec.paths['/v1/user'].get.responses['200']).toBeDefined();
  });
});
