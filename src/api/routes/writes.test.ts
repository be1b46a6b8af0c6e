import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, type Store } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { send } from '../testing/send.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../testing/serve.js';

interface Operation {
  readonly method: string;
  readonly path: string;
}

/** Every operation of /openapi.json that is not a read: what a read key must never get through. */
async function writeOperations(api: RunningApi): Promise<Operation[]> {
  const document = (await api.get('/openapi.json')).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => !['get', 'head'].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
}

describe.each(ENGINES)('the write endpoints on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  let readKey: string;
  let operations: Operation[];

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    const teamId = (await store.teams.ensure('default')).id;
    readKey = (await store.keys.create({ teamId, name: 'reader' })).secret;
    operations = await writeOperations(api);
  });
  afterAll(() => served?.close());

  it('are all in /openapi.json with the 403 a read key gets and the X-Team-Id header', async () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('POST /v1/scans/import');
    const document = (await api.get('/openapi.json')).body;
    for (const { method, path } of operations) {
      const responses = document.paths[path][method.toLowerCase()].responses;
      expect(Object.keys(responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(['200', '401', '403']),
      );
      const parameters = document.paths[path][method.toLowerCase()].parameters as {
        in: string;
        name: string;
      }[];
      expect(parameters, `${method} ${path}`).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'x-team-id' }),
      );
    }
  });

  it('answer a read key 403 with the API’s error body, every one of them', async () => {
    for (const { method, path } of operations) {
      const concrete = path.replace(/\{[^}]+\}/g, () => newId());
      const answered = await send(
        api.url,
        method,
        concrete,
        { 'X-Api-Key': readKey, 'Content-Type': 'application/json' },
        '{}',
      );
      expect(answered.status, `${method} ${path}`).toBe(403);
      expect(answered.body, `${method} ${path}`).toEqual({ message: expect.any(String), code: 'forbidden' });
    }
  });

  it('answer 401 without a key, before anything else', async () => {
    for (const { method, path } of operations) {
      const answered = await send(
        api.url,
        method,
        path.replace(/\{[^}]+\}/g, () => newId()),
        {},
        '',
      );
      expect(answered.status, `${method} ${path}`).toBe(401);
    }
  });
});
